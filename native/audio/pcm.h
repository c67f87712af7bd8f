// The PCM encodings of the SPEC: float samples to 16-bit, float, mu-law or A-law bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace svc {

enum class Encoding { PcmS16le, PcmF32le, PcmMulaw, PcmAlaw };

// Throws std::invalid_argument for an unknown name.
Encoding ParseEncoding(const std::string& name);
size_t BytesPerSample(Encoding encoding);

// Appends `samples` in `encoding` to `out`.
void Encode(const float* samples, size_t count, Encoding encoding, std::vector<uint8_t>& out);

}  // namespace svc
