// Sample-rate conversion (libsoxr, band-limited) and the PCM encodings of the SPEC.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace svc {

enum class Encoding { PcmS16le, PcmF32le, PcmMulaw, PcmAlaw };

// Throws std::invalid_argument for an unknown name.
Encoding ParseEncoding(const std::string& name);
size_t BytesPerSample(Encoding encoding);

// Resamples a whole piece; the result holds round(input * outRate / inRate) samples.
std::vector<float> Resample(const std::vector<float>& input, int inRate, int outRate);

// Appends `samples` in `encoding` to `out`.
void Encode(const float* samples, size_t count, Encoding encoding, std::vector<uint8_t>& out);

}  // namespace svc
