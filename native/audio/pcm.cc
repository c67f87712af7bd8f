#include "audio/pcm.h"

#include <soxr.h>

#include <cmath>
#include <cstring>
#include <map>
#include <utility>
#include <stdexcept>

namespace svc {
namespace {

// Comparisons rather than fmin/fmax, and lrint built with -fno-math-errno: this runs once a
// sample, and as library calls they cost espeak-ng's output about 5 % of its synthesis time.
int16_t ToS16(float x) {
  float scaled = x * 32768.0f;
  if (!(scaled < 32767.0f)) scaled = 32767.0f;  // NaN too
  if (scaled < -32768.0f) scaled = -32768.0f;
  return static_cast<int16_t>(std::lrint(scaled));  // to nearest, ties to even, as nearbyint did
}

float ClipUnit(float x) {
  if (!(x < 1.0f)) return 1.0f;  // NaN too
  return x < -1.0f ? -1.0f : x;
}

// ITU-T G.711 mu-law.
uint8_t MulawFromS16(int16_t pcm) {
  constexpr int kBias = 0x84, kClip = 32635;
  int sample = pcm;
  const int sign = sample < 0 ? 0x80 : 0;
  if (sign) sample = -sample;
  if (sample > kClip) sample = kClip;
  sample += kBias;
  int exponent = 7;
  for (int mask = 0x4000; (sample & mask) == 0 && exponent > 0; mask >>= 1) --exponent;
  const int mantissa = (sample >> (exponent + 3)) & 0x0F;
  return static_cast<uint8_t>(~(sign | (exponent << 4) | mantissa));
}

// ITU-T G.711 A-law.
uint8_t AlawFromS16(int16_t pcm) {
  int sample = pcm >> 3;  // A-law works on 13-bit magnitudes
  int sign = 0x80;
  if (sample < 0) {
    sign = 0;
    sample = -sample - 1;
  }
  if (sample > 0xFFF) sample = 0xFFF;
  int exponent = 0;
  for (int v = sample >> 5; v != 0; v >>= 1) ++exponent;
  const int mantissa = exponent == 0 ? (sample >> 1) & 0x0F : (sample >> exponent) & 0x0F;
  return static_cast<uint8_t>((sign | (exponent << 4) | mantissa) ^ 0x55);
}

}  // namespace

Encoding ParseEncoding(const std::string& name) {
  if (name == "pcm_s16le") return Encoding::PcmS16le;
  if (name == "pcm_f32le") return Encoding::PcmF32le;
  if (name == "pcm_mulaw") return Encoding::PcmMulaw;
  if (name == "pcm_alaw") return Encoding::PcmAlaw;
  throw std::invalid_argument("unknown encoding '" + name + "'");
}

size_t BytesPerSample(Encoding encoding) {
  switch (encoding) {
    case Encoding::PcmS16le: return 2;
    case Encoding::PcmF32le: return 4;
    default: return 1;
  }
}

// One soxr filter design per rate pair and thread, cloned per piece: designing the filter costs
// more than running it on a short piece. Pool threads live as long as the process, and so do these.
namespace {

soxr_t NewResampler(int inRate, int outRate) {
  const soxr_io_spec_t io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I);
  const soxr_quality_spec_t quality = soxr_quality_spec(SOXR_HQ, 0);
  soxr_error_t err = nullptr;
  soxr_t resampler = soxr_create(inRate, outRate, 1, &err, &io, &quality, nullptr);
  if (err) throw std::runtime_error(std::string("resampler setup failed: ") + err);
  return resampler;
}

soxr_t ResamplerFor(int inRate, int outRate) {
  thread_local std::map<std::pair<int, int>, soxr_t> cache;
  soxr_t& resampler = cache[{inRate, outRate}];
  if (resampler == nullptr) resampler = NewResampler(inRate, outRate);
  else soxr_clear(resampler);
  return resampler;
}

}  // namespace

PieceResampler::PieceResampler(int inRate, int outRate) : ratio_(static_cast<double>(outRate) / inRate) {
  if (inRate != outRate) resampler_ = ResamplerFor(inRate, outRate);
}

// The cached filter is reused by the next piece on this thread (a piece is resampled on one thread).
PieceResampler::~PieceResampler() = default;

void PieceResampler::Drain(const float* input, size_t count, std::vector<float>& out) {
  auto* resampler = static_cast<soxr_t>(resampler_);
  size_t consumed = 0;
  for (;;) {
    const size_t room = static_cast<size_t>(std::ceil((count - consumed) * ratio_)) + 256;
    const size_t start = out.size();
    out.resize(start + room);
    size_t used = 0, made = 0;
    soxr_error_t err = soxr_process(resampler, input ? input + consumed : nullptr, input ? count - consumed : 0, &used,
                                    out.data() + start, room, &made);
    if (err) throw std::runtime_error(std::string("resampling failed: ") + err);
    out.resize(start + made);
    produced_ += static_cast<int64_t>(made);
    consumed += used;
    if (input ? consumed >= count : made == 0) return;
  }
}

void PieceResampler::Push(const float* input, size_t count, std::vector<float>& out) {
  consumed_ += static_cast<int64_t>(count);
  if (resampler_ == nullptr) {
    out.insert(out.end(), input, input + count);
    produced_ += static_cast<int64_t>(count);
    return;
  }
  if (count > 0) Drain(input, count, out);
}

void PieceResampler::Finish(std::vector<float>& out) {
  const auto expected = static_cast<int64_t>(std::llround(static_cast<double>(consumed_) * ratio_));
  if (resampler_ != nullptr && consumed_ > 0) {
    const size_t before = out.size();
    const int64_t producedBefore = produced_;
    Drain(nullptr, 0, out);
    // Pin the length: drop what the flush made past the exact count.
    const int64_t excess = produced_ - expected;
    if (excess > 0) out.resize(before + static_cast<size_t>(std::max<int64_t>(0, expected - producedBefore)));
  }
  const int64_t total = std::min(produced_, expected);
  if (total < expected) out.insert(out.end(), static_cast<size_t>(expected - total), 0.0f);
  produced_ = expected;
}

std::vector<float> Resample(const std::vector<float>& input, int inRate, int outRate) {
  if (inRate == outRate) return input;
  PieceResampler resampler(inRate, outRate);
  std::vector<float> output;
  resampler.Push(input.data(), input.size(), output);
  resampler.Finish(output);
  return output;
}

void Encode(const float* samples, size_t count, Encoding encoding, std::vector<uint8_t>& out) {
  const size_t start = out.size();
  out.resize(start + count * BytesPerSample(encoding));
  uint8_t* dst = out.data() + start;
  for (size_t i = 0; i < count; ++i) {
    switch (encoding) {
      case Encoding::PcmS16le: {
        const uint16_t v = static_cast<uint16_t>(ToS16(samples[i]));
        dst[2 * i] = v & 0xFF;
        dst[2 * i + 1] = v >> 8;
        break;
      }
      case Encoding::PcmF32le: {
        const float clipped = ClipUnit(samples[i]);
        std::memcpy(dst + 4 * i, &clipped, 4);  // x86-64 and arm64 are little-endian
        break;
      }
      case Encoding::PcmMulaw: dst[i] = MulawFromS16(ToS16(samples[i])); break;
      case Encoding::PcmAlaw: dst[i] = AlawFromS16(ToS16(samples[i])); break;
    }
  }
}

}  // namespace svc
