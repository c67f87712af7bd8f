// The protobuf wire format, as much of it as reading and rewriting an ONNX model's bytes needs
// (field numbers from onnx.proto): the model is edited where it lies, without libprotobuf.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace svc::onnx_wire {

constexpr int kModelGraph = 7, kModelOpsetImport = 8;
constexpr int kOpsetDomain = 1, kOpsetVersion = 2;
constexpr int kGraphNode = 1, kGraphInitializer = 5, kGraphInput = 11, kGraphOutput = 12, kGraphValueInfo = 13,
              kGraphSparseInitializer = 15;
constexpr int kNodeInput = 1, kNodeOutput = 2, kNodeName = 3, kNodeOpType = 4, kNodeAttribute = 5, kNodeDomain = 7;
constexpr int kAttributeName = 1, kAttributeInt = 3, kAttributeGraph = 6, kAttributeInts = 8, kAttributeGraphs = 11,
              kAttributeType = 20;
constexpr int kAttributeTypeInts = 7;  // AttributeProto.AttributeType.INTS
constexpr int kTensorDims = 1, kTensorDataType = 2, kTensorName = 8, kTensorRawData = 9, kTensorDataLocation = 14;
constexpr int kValueInfoName = 1, kValueInfoType = 2;
constexpr int kTypeTensor = 1, kTensorTypeElemType = 1;
constexpr int kFloat = 1, kInt64 = 7;  // TensorProto.DataType
constexpr int kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5;

struct Field {
  int number = 0;
  int wireType = 0;
  uint64_t varint = 0;
  std::string_view payload;  // kLengthDelimited
  std::string_view whole;    // tag and value, to copy the field unchanged
};

// Throw std::runtime_error for malformed bytes.
uint64_t ReadVarint(std::string_view bytes, size_t& at);
std::vector<Field> ReadFields(std::string_view bytes);
// A repeated integer field's values, packed or not, from all of `fields` numbered `number`.
std::vector<int64_t> ReadInts(const std::vector<Field>& fields, int number);
// The first length-delimited field `number` of `message`, or empty.
std::string_view StringField(std::string_view message, int number);

// What a TensorProto (an initializer) says of itself besides its data.
struct TensorHeader {
  std::string name;
  std::vector<int64_t> dims;
  bool external = false;  // data_location EXTERNAL: the values are in another file
};
TensorHeader ReadTensorHeader(std::string_view tensor);

void AppendVarint(std::string& out, uint64_t value);
void AppendVarintField(std::string& out, int number, uint64_t value);
void AppendMessage(std::string& out, int number, std::string_view payload);

}  // namespace svc::onnx_wire
