#include "audio/encoder.h"

#include <cmath>

namespace svc {

int32_t QuantizeSample(float x, int bits) {
  const double scale = static_cast<double>(int64_t{1} << (bits - 1));
  const double scaled = std::nearbyint(static_cast<double>(x) * scale);
  return static_cast<int32_t>(std::fmax(-scale, std::fmin(scale - 1, scaled)));
}

std::unique_ptr<Encoder> CreateEncoder(const EncoderConfig& config) {
  switch (config.codec) {
    case Codec::Mp3: return CreateMp3Encoder(config);
    case Codec::Opus: return CreateOpusEncoder(config);
    case Codec::Flac: return CreateFlacEncoder(config);
  }
  return nullptr;
}

}  // namespace svc
