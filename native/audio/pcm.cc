#include "audio/pcm.h"

#include <cmath>
#include <cstring>
#include <stdexcept>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

// The rule of ToS16 on eight samples at once: minps gives its second operand for NaN, as the
// scalar comparison does, and cvtps2dq rounds as lrint does (the current mode, to nearest even).
// Scalar, this took about 2 % of espeak-ng's synthesis threads (bench/native/pcm-s16.cc).
size_t EncodeS16Vectors(const float* samples, size_t count, uint8_t* dst) {
  size_t i = 0;
#if defined(__SSE2__)
  const __m128 high = _mm_set1_ps(32767.0f), low = _mm_set1_ps(-32768.0f), scale = _mm_set1_ps(32768.0f);
  for (; i + 8 <= count; i += 8) {
    const __m128 a = _mm_max_ps(_mm_min_ps(_mm_mul_ps(_mm_loadu_ps(samples + i), scale), high), low);
    const __m128 b = _mm_max_ps(_mm_min_ps(_mm_mul_ps(_mm_loadu_ps(samples + i + 4), scale), high), low);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 2 * i), _mm_packs_epi32(_mm_cvtps_epi32(a), _mm_cvtps_epi32(b)));
  }
#endif
  return i;
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

void Encode(const float* samples, size_t count, Encoding encoding, std::vector<uint8_t>& out) {
  const size_t start = out.size();
  out.resize(start + count * BytesPerSample(encoding));
  uint8_t* dst = out.data() + start;
  switch (encoding) {
    case Encoding::PcmS16le:
      for (size_t i = EncodeS16Vectors(samples, count, dst); i < count; ++i) {
        const uint16_t v = static_cast<uint16_t>(ToS16(samples[i]));
        dst[2 * i] = v & 0xFF;
        dst[2 * i + 1] = v >> 8;
      }
      break;
    case Encoding::PcmF32le:
      for (size_t i = 0; i < count; ++i) {
        const float clipped = ClipUnit(samples[i]);
        std::memcpy(dst + 4 * i, &clipped, 4);  // x86-64 and arm64 are little-endian
      }
      break;
    case Encoding::PcmMulaw:
      for (size_t i = 0; i < count; ++i) dst[i] = MulawFromS16(ToS16(samples[i]));
      break;
    case Encoding::PcmAlaw:
      for (size_t i = 0; i < count; ++i) dst[i] = AlawFromS16(ToS16(samples[i]));
      break;
  }
}

}  // namespace svc
