#include "onnx/wire.h"

#include <stdexcept>

namespace svc::onnx_wire {

uint64_t ReadVarint(std::string_view bytes, size_t& at) {
  uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (at >= bytes.size()) throw std::runtime_error("truncated varint");
    const auto byte = static_cast<uint8_t>(bytes[at++]);
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return value;
  }
  throw std::runtime_error("varint too long");
}

std::vector<Field> ReadFields(std::string_view bytes) {
  std::vector<Field> fields;
  size_t at = 0;
  while (at < bytes.size()) {
    const size_t start = at;
    Field f;
    const uint64_t tag = ReadVarint(bytes, at);
    f.number = static_cast<int>(tag >> 3);
    f.wireType = static_cast<int>(tag & 7);
    switch (f.wireType) {
      case kVarint: f.varint = ReadVarint(bytes, at); break;
      case kFixed64: at += 8; break;
      case kFixed32: at += 4; break;
      case kLengthDelimited: {
        const uint64_t length = ReadVarint(bytes, at);
        if (length > bytes.size() - at) throw std::runtime_error("field runs past its message");
        f.payload = bytes.substr(at, static_cast<size_t>(length));
        at += static_cast<size_t>(length);
        break;
      }
      default: throw std::runtime_error("unsupported wire type " + std::to_string(f.wireType));
    }
    if (at > bytes.size()) throw std::runtime_error("field runs past its message");
    f.whole = bytes.substr(start, at - start);
    fields.push_back(f);
  }
  return fields;
}

std::vector<int64_t> ReadInts(const std::vector<Field>& fields, int number) {
  std::vector<int64_t> values;
  for (const Field& f : fields) {
    if (f.number != number) continue;
    if (f.wireType == kVarint) {
      values.push_back(static_cast<int64_t>(f.varint));
    } else if (f.wireType == kLengthDelimited) {  // packed
      size_t at = 0;
      while (at < f.payload.size()) values.push_back(static_cast<int64_t>(ReadVarint(f.payload, at)));
    }
  }
  return values;
}

std::string_view StringField(std::string_view message, int number) {
  for (const Field& f : ReadFields(message))
    if (f.number == number && f.wireType == kLengthDelimited) return f.payload;
  return {};
}

TensorHeader ReadTensorHeader(std::string_view tensor) {
  TensorHeader header;
  const std::vector<Field> fields = ReadFields(tensor);
  for (const Field& f : fields) {
    if (f.number == kTensorName && f.wireType == kLengthDelimited) header.name = std::string(f.payload);
    else if (f.number == kTensorDataLocation && f.wireType == kVarint) header.external = f.varint == 1;
  }
  header.dims = ReadInts(fields, kTensorDims);
  return header;
}

void AppendVarint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

void AppendVarintField(std::string& out, int number, uint64_t value) {
  AppendVarint(out, (static_cast<uint64_t>(number) << 3) | kVarint);
  AppendVarint(out, value);
}

void AppendMessage(std::string& out, int number, std::string_view payload) {
  AppendVarint(out, (static_cast<uint64_t>(number) << 3) | kLengthDelimited);
  AppendVarint(out, payload.size());
  out.append(payload);
}

}  // namespace svc::onnx_wire
