// Compressed audio: one encoder object per stream, fed float PCM in order and flushed at the end.
// Each Encode() returns whole units of the format (MP3 frames, Ogg pages, FLAC frames), so the
// bytes handed out so far always form a decodable file; the headers come with the first call.
// Not thread-safe: the caller runs one call at a time (any thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace svc {

enum class Codec { Mp3, Opus, Flac };

struct EncoderConfig {
  Codec codec = Codec::Flac;
  int sampleRate = 44100;   // of the PCM fed in (for Opus: 8000, 12000, 16000, 24000 or 48000)
  int bitsPerSample = 16;   // 16: samples are rounded to 16 bits first (FLAC stores 16); 24: FLAC stores 24
  int bitRate = 0;          // MP3 (a standard rate of the MPEG version) and Opus, bits/s
  int headerSampleRate = 0; // Opus: the rate OpusHead names as the input's (0: sampleRate)
};

class Encoder {
 public:
  virtual ~Encoder() = default;
  // Appends to `out` what `count` more mono samples (nominally -1..1) complete.
  virtual void Encode(const float* samples, size_t count, std::vector<uint8_t>& out) = 0;
  // Appends the rest: buffered samples, the codec's tail, the end-of-stream marks. Call once, last.
  virtual void Finish(std::vector<uint8_t>& out) = 0;
};

// Throws NativeError(kInvalidArgument) for a configuration the codec refuses.
std::unique_ptr<Encoder> CreateMp3Encoder(const EncoderConfig& config);
std::unique_ptr<Encoder> CreateOpusEncoder(const EncoderConfig& config);
std::unique_ptr<Encoder> CreateFlacEncoder(const EncoderConfig& config);
std::unique_ptr<Encoder> CreateEncoder(const EncoderConfig& config);

// -1..1 floats to integers of `bits` bits, rounded and clipped (what a 16- or 24-bit file holds).
int32_t QuantizeSample(float x, int bits);

}  // namespace svc
