// FLAC with libFLAC's stream encoder, writing through a callback: the fLaC marker and metadata
// come out at init, then one write per frame. With no seek callback the STREAMINFO keeps
// "total samples unknown" (0), which every decoder reads to the end of the stream.
#include <FLAC/stream_encoder.h>

#include <string>
#include <vector>

#include "audio/encoder.h"
#include "base/errors.h"

namespace svc {
namespace {

class FlacEncoder : public Encoder {
 public:
  explicit FlacEncoder(const EncoderConfig& config) : bits_(config.bitsPerSample), flac_(FLAC__stream_encoder_new()) {
    if (flac_ == nullptr) throw NativeError(code::kSynthesis, "FLAC__stream_encoder_new failed");
    const bool set = FLAC__stream_encoder_set_channels(flac_, 1) &&
                     FLAC__stream_encoder_set_bits_per_sample(flac_, static_cast<uint32_t>(bits_)) &&
                     FLAC__stream_encoder_set_sample_rate(flac_, static_cast<uint32_t>(config.sampleRate)) &&
                     FLAC__stream_encoder_set_compression_level(flac_, 5) &&
                     FLAC__stream_encoder_set_streamable_subset(flac_, true);
    if (!set || FLAC__stream_encoder_init_stream(flac_, &Write, nullptr, nullptr, nullptr, this) !=
                    FLAC__STREAM_ENCODER_INIT_STATUS_OK) {
      const std::string state = FLAC__stream_encoder_get_resolved_state_string(flac_);
      FLAC__stream_encoder_delete(flac_);
      throw NativeError(code::kInvalidArgument, "FLAC refuses " + std::to_string(config.sampleRate) + " Hz, " +
                                                    std::to_string(bits_) + " bits: " + state);
    }
  }
  ~FlacEncoder() override { FLAC__stream_encoder_delete(flac_); }

  void Encode(const float* samples, size_t count, std::vector<uint8_t>& out) override {
    TakeHeaders(out);
    if (count == 0) return;
    integers_.resize(count);
    for (size_t i = 0; i < count; ++i) integers_[i] = QuantizeSample(samples[i], bits_);
    sink_ = &out;
    const bool ok = FLAC__stream_encoder_process_interleaved(flac_, integers_.data(), static_cast<uint32_t>(count));
    sink_ = nullptr;
    if (!ok) Fail();
  }

  void Finish(std::vector<uint8_t>& out) override {
    TakeHeaders(out);
    sink_ = &out;
    const bool ok = FLAC__stream_encoder_finish(flac_);
    sink_ = nullptr;
    if (!ok) Fail();
  }

 private:
  static FLAC__StreamEncoderWriteStatus Write(const FLAC__StreamEncoder*, const FLAC__byte buffer[], size_t bytes,
                                              uint32_t, uint32_t, void* client) {
    auto* self = static_cast<FlacEncoder*>(client);
    std::vector<uint8_t>& out = self->sink_ ? *self->sink_ : self->headers_;
    out.insert(out.end(), buffer, buffer + bytes);
    return FLAC__STREAM_ENCODER_WRITE_STATUS_OK;
  }

  void TakeHeaders(std::vector<uint8_t>& out) {
    out.insert(out.end(), headers_.begin(), headers_.end());
    headers_.clear();
  }

  [[noreturn]] void Fail() {
    throw NativeError(code::kSynthesis, std::string("FLAC encoding failed: ") + FLAC__stream_encoder_get_resolved_state_string(flac_));
  }

  const int bits_;
  FLAC__StreamEncoder* flac_;
  std::vector<uint8_t>* sink_ = nullptr;  // where a call's frames go
  std::vector<uint8_t> headers_;          // the metadata written at init, for the first call
  std::vector<int32_t> integers_;
};

}  // namespace

std::unique_ptr<Encoder> CreateFlacEncoder(const EncoderConfig& config) { return std::make_unique<FlacEncoder>(config); }

}  // namespace svc
