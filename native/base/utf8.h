// UTF-8 as the backends and the neural phonemizer read it: code point offsets (word timings count
// code points into a piece's text) and code points one by one (one IPA phoneme is one code point).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace svc {

// Code point offset of a UTF-8 byte offset (counts lead bytes before it).
int32_t CodePointOffset(const std::string& utf8, size_t byteOffset);

// Invalid and cut-short sequences are skipped.
std::u32string DecodeUtf8(const std::string& text);
std::string EncodeUtf8(const std::u32string& text);

}  // namespace svc
