// MP3 with libmp3lame: constant bit rate, mono, at the PCM's own rate (no resampling by LAME),
// no Xing/LAME tag (it can only be written once the stream is over, and a stream has been sent
// by then), no ID3 tag. LAME hands out whole frames; the bit reservoir only borrows room in
// frames already written, so any run of frames from the start decodes.
#include <lame/lame.h>

#include <string>
#include <vector>

#include "encoder.h"
#include "errors.h"

namespace svc {
namespace {

class Mp3Encoder : public Encoder {
 public:
  explicit Mp3Encoder(const EncoderConfig& config) : bits_(config.bitsPerSample), lame_(lame_init()) {
    if (lame_ == nullptr) throw NativeError(code::kSynthesis, "lame_init failed");
    lame_set_num_channels(lame_, 1);
    lame_set_mode(lame_, MONO);
    lame_set_in_samplerate(lame_, config.sampleRate);
    lame_set_out_samplerate(lame_, config.sampleRate);
    lame_set_VBR(lame_, vbr_off);
    lame_set_brate(lame_, config.bitRate / 1000);
    lame_set_bWriteVbrTag(lame_, 0);
    // LAME's own default (3) costs about twice as much as 5 for no difference on speech.
    lame_set_quality(lame_, 5);
    if (lame_init_params(lame_) < 0 || lame_get_brate(lame_) * 1000 != config.bitRate) {
      lame_close(lame_);
      throw NativeError(code::kInvalidArgument, "LAME refuses " + std::to_string(config.bitRate) + " bits/s at " +
                                                    std::to_string(config.sampleRate) + " Hz");
    }
  }
  ~Mp3Encoder() override { lame_close(lame_); }

  void Encode(const float* samples, size_t count, std::vector<uint8_t>& out) override {
    if (count == 0) return;
    const float* input = samples;
    if (bits_ == 16) {
      rounded_.resize(count);
      for (size_t i = 0; i < count; ++i) rounded_[i] = static_cast<float>(QuantizeSample(samples[i], 16)) / 32768.0f;
      input = rounded_.data();
    }
    // LAME's bound for one call: 1.25 x samples + 7200 bytes.
    const size_t start = out.size();
    out.resize(start + count + count / 4 + 7200);
    const int made = lame_encode_buffer_ieee_float(lame_, input, input, static_cast<int>(count), out.data() + start,
                                                   static_cast<int>(out.size() - start));
    if (made < 0) throw NativeError(code::kSynthesis, "MP3 encoding failed (LAME error " + std::to_string(made) + ")");
    out.resize(start + static_cast<size_t>(made));
  }

  void Finish(std::vector<uint8_t>& out) override {
    const size_t start = out.size();
    out.resize(start + 7200);
    const int made = lame_encode_flush(lame_, out.data() + start, 7200);
    if (made < 0) throw NativeError(code::kSynthesis, "MP3 flush failed (LAME error " + std::to_string(made) + ")");
    out.resize(start + static_cast<size_t>(made));
  }

 private:
  const int bits_;
  lame_t lame_;
  std::vector<float> rounded_;
};

}  // namespace

std::unique_ptr<Encoder> CreateMp3Encoder(const EncoderConfig& config) { return std::make_unique<Mp3Encoder>(config); }

}  // namespace svc
