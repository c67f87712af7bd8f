// MP3 with libmp3lame: constant bit rate, mono, at the PCM's own rate (no resampling by LAME),
// no Xing/LAME tag (it can only be written once the stream is over, and a stream has been sent
// by then), no ID3 tag. LAME's output may stop inside a frame: only whole frames are handed on,
// the rest waits for the next call. The bit reservoir only borrows room in frames already
// written, so any run of whole frames from the start decodes; the first output waits for four
// frames, since ffmpeg's MP3 reader refuses some files of fewer.
#include <lame/lame.h>

#include <string>
#include <vector>

#include "audio/encoder.h"
#include "base/errors.h"

namespace svc {
namespace {

// The length in bytes of the layer III frame whose 4-byte header is at `p`, or 0 if it is none.
size_t FrameLength(const uint8_t* p) {
  static constexpr int kKbps[2][16] = {{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 0},
                                       {0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160, 0}};
  static constexpr int kRates[4][3] = {{11025, 12000, 8000}, {0, 0, 0}, {22050, 24000, 16000}, {44100, 48000, 32000}};
  if (p[0] != 0xFF || (p[1] & 0xE0) != 0xE0 || ((p[1] >> 1) & 3) != 1) return 0;
  const int version = (p[1] >> 3) & 3;  // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5
  const int kbps = kKbps[version == 3 ? 0 : 1][p[2] >> 4];
  const int rateIndex = (p[2] >> 2) & 3;
  if (version == 1 || kbps == 0 || rateIndex == 3) return 0;
  const int samplesPerFrame = version == 3 ? 1152 : 576;
  return static_cast<size_t>(samplesPerFrame / 8 * kbps * 1000 / kRates[version][rateIndex] + ((p[2] >> 1) & 1));
}

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
    const size_t start = pending_.size();
    pending_.resize(start + count + count / 4 + 7200);
    const int made = lame_encode_buffer_ieee_float(lame_, input, input, static_cast<int>(count), pending_.data() + start,
                                                   static_cast<int>(pending_.size() - start));
    if (made < 0) throw NativeError(code::kSynthesis, "MP3 encoding failed (LAME error " + std::to_string(made) + ")");
    pending_.resize(start + static_cast<size_t>(made));
    size_t whole = 0, frames = 0;
    while (whole + 4 <= pending_.size()) {
      const size_t length = FrameLength(pending_.data() + whole);
      if (length == 0) throw NativeError(code::kSynthesis, "LAME wrote something that is not an MP3 frame");
      if (whole + length > pending_.size()) break;
      whole += length;
      ++frames;
    }
    // ffmpeg's probe finds no stream in some files of one to three frames (at every rate and bit rate
    // tried, four or more always decode): the first bytes out are four frames.
    if (!started_ && frames < kFirstFrames) return;
    started_ = true;
    out.insert(out.end(), pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(whole));
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(whole));
  }

  void Finish(std::vector<uint8_t>& out) override {
    const size_t start = pending_.size();
    pending_.resize(start + 7200);
    const int made = lame_encode_flush(lame_, pending_.data() + start, 7200);
    if (made < 0) throw NativeError(code::kSynthesis, "MP3 flush failed (LAME error " + std::to_string(made) + ")");
    pending_.resize(start + static_cast<size_t>(made));
    out.insert(out.end(), pending_.begin(), pending_.end());
    pending_.clear();
  }

 private:
  static constexpr size_t kFirstFrames = 4;
  const int bits_;
  lame_t lame_;
  std::vector<float> rounded_;
  std::vector<uint8_t> pending_;  // LAME's output past the last whole frame handed on
  bool started_ = false;          // some frames were handed on
};

}  // namespace

std::unique_ptr<Encoder> CreateMp3Encoder(const EncoderConfig& config) { return std::make_unique<Mp3Encoder>(config); }

}  // namespace svc
