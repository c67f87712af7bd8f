// Ogg Opus (RFC 7845) with libopus and libogg: OpusHead and OpusTags each on a page of their
// own, then 20 ms packets. Every Encode() that completes a packet ends with a flushed page, so
// what was handed out is a complete Ogg stream so far (with the granule position of its last
// packet); the header pages wait for the first audio page. Finish() pads the
// last frame, encodes past the encoder's lookahead so every sample comes out, and sets the last
// page's granule position to the exact end, which tells decoders to trim the padding.
#include <ogg/ogg.h>
#include <opus/opus.h>

#include <cstring>
#include <string>
#include <vector>

#include "audio/encoder.h"
#include "base/errors.h"

namespace svc {
namespace {

constexpr int kGranuleRate = 48000;  // Ogg Opus granule positions count 48 kHz samples
constexpr int kFramesPerSecond = 50;  // 20 ms packets
constexpr size_t kMaxPacketBytes = 1500;
// Any fixed serial number: a file holds one logical stream, and equal requests stay byte-equal.
constexpr int kSerialNumber = 0x73766354;  // "svcT"

void PutLe16(std::vector<uint8_t>& out, uint32_t v) {
  out.push_back(v & 0xFF);
  out.push_back((v >> 8) & 0xFF);
}
void PutLe32(std::vector<uint8_t>& out, uint32_t v) {
  PutLe16(out, v & 0xFFFF);
  PutLe16(out, v >> 16);
}

class OpusOggEncoder : public Encoder {
 public:
  explicit OpusOggEncoder(const EncoderConfig& config)
      : bits_(config.bitsPerSample), frameSize_(config.sampleRate / kFramesPerSecond),
        granulesPerSample_(kGranuleRate / config.sampleRate) {
    const int rate = config.sampleRate;
    if (rate != 8000 && rate != 12000 && rate != 16000 && rate != 24000 && rate != 48000)
      throw NativeError(code::kInvalidArgument, "Opus does not encode at " + std::to_string(rate) + " Hz");
    int error = OPUS_OK;
    opus_ = opus_encoder_create(rate, 1, OPUS_APPLICATION_AUDIO, &error);
    if (error != OPUS_OK) throw NativeError(code::kInvalidArgument, std::string("opus_encoder_create: ") + opus_strerror(error));
    opus_int32 lookahead = 0;
    if (opus_encoder_ctl(opus_, OPUS_SET_BITRATE(config.bitRate)) != OPUS_OK ||
        opus_encoder_ctl(opus_, OPUS_SET_SIGNAL(OPUS_SIGNAL_VOICE)) != OPUS_OK ||
        opus_encoder_ctl(opus_, OPUS_GET_LOOKAHEAD(&lookahead)) != OPUS_OK) {
      opus_encoder_destroy(opus_);
      throw NativeError(code::kInvalidArgument, "Opus refuses " + std::to_string(config.bitRate) + " bits/s");
    }
    preSkip_ = lookahead * granulesPerSample_;
    ogg_stream_init(&ogg_, kSerialNumber);
    WriteHeaders(config.headerSampleRate > 0 ? config.headerSampleRate : rate);
  }

  ~OpusOggEncoder() override {
    ogg_stream_clear(&ogg_);
    opus_encoder_destroy(opus_);
  }

  void Encode(const float* samples, size_t count, std::vector<uint8_t>& out) override {
    std::vector<uint8_t> pages;
    for (size_t i = 0; i < count; ++i) {
      pending_.push_back(bits_ == 16 ? static_cast<float>(QuantizeSample(samples[i], 16)) / 32768.0f : samples[i]);
      if (pending_.size() == static_cast<size_t>(frameSize_)) EncodeFrame(false, 0, pages);
    }
    inputSamples_ += static_cast<int64_t>(count);
    Flush(pages);
    // The headers go out with the first audio page: a stream of headers alone is not a file to
    // decoders (ffmpeg stops at "End of file").
    if (pages.empty()) return;
    TakeHeaders(out);
    out.insert(out.end(), pages.begin(), pages.end());
  }

  void Finish(std::vector<uint8_t>& out) override {
    TakeHeaders(out);
    // Decoders drop the first preSkip samples; the input ends preSkip + n granules in.
    const int64_t end = preSkip_ + inputSamples_ * granulesPerSample_;
    do {
      pending_.resize(static_cast<size_t>(frameSize_), 0.0f);
      const bool last = encodedGranules_ + static_cast<int64_t>(frameSize_) * granulesPerSample_ >= end;
      EncodeFrame(last, end, out);
    } while (encodedGranules_ < end);
    Flush(out);
  }

 private:
  void WriteHeaders(int inputRate) {
    std::vector<uint8_t> head = {'O', 'p', 'u', 's', 'H', 'e', 'a', 'd', 1, 1};  // version 1, mono
    PutLe16(head, static_cast<uint32_t>(preSkip_));
    PutLe32(head, static_cast<uint32_t>(inputRate));
    PutLe16(head, 0);  // output gain
    head.push_back(0);  // channel mapping family 0: mono or stereo, no table
    const char* vendor = opus_get_version_string();
    std::vector<uint8_t> tags = {'O', 'p', 'u', 's', 'T', 'a', 'g', 's'};
    PutLe32(tags, static_cast<uint32_t>(std::strlen(vendor)));
    tags.insert(tags.end(), vendor, vendor + std::strlen(vendor));
    PutLe32(tags, 0);  // no user comments
    // RFC 7845 section 3: each header packet ends its page, and audio starts on a fresh page.
    Packet(head, true, false, 0);
    Flush(headers_);
    Packet(tags, false, false, 0);
    Flush(headers_);
  }

  void TakeHeaders(std::vector<uint8_t>& out) {
    out.insert(out.end(), headers_.begin(), headers_.end());
    headers_.clear();
  }

  void Packet(const std::vector<uint8_t>& data, bool first, bool last, int64_t granule) {
    ogg_packet packet{};
    packet.packet = const_cast<unsigned char*>(data.data());
    packet.bytes = static_cast<long>(data.size());
    packet.b_o_s = first ? 1 : 0;
    packet.e_o_s = last ? 1 : 0;
    packet.granulepos = granule;
    packet.packetno = packetNo_++;
    if (ogg_stream_packetin(&ogg_, &packet) != 0) throw NativeError(code::kSynthesis, "libogg refused a packet");
  }

  // One frame from pending_ (full): a packet whose granule is the end of its audio, or `end` for the last.
  void EncodeFrame(bool last, int64_t end, std::vector<uint8_t>& out) {
    packet_.resize(kMaxPacketBytes);
    const opus_int32 bytes = opus_encode_float(opus_, pending_.data(), frameSize_, packet_.data(), kMaxPacketBytes);
    if (bytes < 0) throw NativeError(code::kSynthesis, std::string("Opus encoding failed: ") + opus_strerror(bytes));
    packet_.resize(static_cast<size_t>(bytes));
    pending_.clear();
    encodedGranules_ += static_cast<int64_t>(frameSize_) * granulesPerSample_;
    Packet(packet_, false, last, last ? end : encodedGranules_);
    ogg_page page;
    while (ogg_stream_pageout(&ogg_, &page) != 0) Append(page, out);
  }

  void Flush(std::vector<uint8_t>& out) {
    ogg_page page;
    while (ogg_stream_flush(&ogg_, &page) != 0) Append(page, out);
  }

  static void Append(const ogg_page& page, std::vector<uint8_t>& out) {
    out.insert(out.end(), page.header, page.header + page.header_len);
    out.insert(out.end(), page.body, page.body + page.body_len);
  }

  const int bits_;
  const int frameSize_;
  const int granulesPerSample_;
  OpusEncoder* opus_ = nullptr;
  ogg_stream_state ogg_{};
  int64_t preSkip_ = 0;
  int64_t packetNo_ = 0;
  int64_t inputSamples_ = 0;
  int64_t encodedGranules_ = 0;  // 48 kHz samples of all packets so far
  std::vector<float> pending_;
  std::vector<uint8_t> packet_;
  std::vector<uint8_t> headers_;
};

}  // namespace

std::unique_ptr<Encoder> CreateOpusEncoder(const EncoderConfig& config) { return std::make_unique<OpusOggEncoder>(config); }

}  // namespace svc
