#include "onnx/model.h"

#include <cstring>
#include <stdexcept>

namespace svc {
namespace {

template <typename T>
Tensor Make(const std::string& name, ONNXTensorElementDataType type, std::vector<int64_t> shape,
            const std::vector<T>& values) {
  Tensor t;
  t.name = name;
  t.type = type;
  t.shape = std::move(shape);
  t.bytes.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

size_t ElementSize(ONNXTensorElementDataType type) {
  switch (type) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32: return 4;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64: return 8;
    default: throw std::runtime_error(std::string("unsupported tensor type ") + TensorTypeName(type));
  }
}

}  // namespace

std::vector<TensorSpec> DescribeSession(Ort::Session& session, bool inputs) {
  std::vector<TensorSpec> specs;
  Ort::AllocatorWithDefaultOptions allocator;
  const size_t count = inputs ? session.GetInputCount() : session.GetOutputCount();
  for (size_t i = 0; i < count; ++i) {
    TensorSpec spec;
    spec.name = (inputs ? session.GetInputNameAllocated(i, allocator) : session.GetOutputNameAllocated(i, allocator)).get();
    Ort::TypeInfo info = inputs ? session.GetInputTypeInfo(i) : session.GetOutputTypeInfo(i);
    if (info.GetONNXType() == ONNX_TYPE_TENSOR) {
      auto shape = info.GetTensorTypeAndShapeInfo();
      spec.type = shape.GetElementType();
      spec.shape = shape.GetShape();
    }
    specs.push_back(std::move(spec));
  }
  return specs;
}

Tensor Tensor::Int64(const std::string& name, std::vector<int64_t> shape, const std::vector<int64_t>& values) {
  return Make(name, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, std::move(shape), values);
}
Tensor Tensor::Int32(const std::string& name, std::vector<int64_t> shape, const std::vector<int32_t>& values) {
  return Make(name, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32, std::move(shape), values);
}
Tensor Tensor::Float(const std::string& name, std::vector<int64_t> shape, const std::vector<float>& values) {
  return Make(name, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, std::move(shape), values);
}

std::vector<float> Tensor::Floats() const {
  if (type != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) throw std::runtime_error("output '" + name + "' is not float32");
  std::vector<float> values(bytes.size() / sizeof(float));
  if (!values.empty()) std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
  return values;
}

const char* TensorTypeName(ONNXTensorElementDataType type) {
  switch (type) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT: return "float32";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32: return "int32";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64: return "int64";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16: return "float16";
    default: return "other";
  }
}

ONNXTensorElementDataType ParseTensorType(const std::string& name) {
  if (name == "float32") return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
  if (name == "int64") return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64;
  if (name == "int32") return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32;
  throw std::invalid_argument("tensor type must be float32, int64 or int32");
}

OnnxModel::OnnxModel(OnnxSession session) : session_(std::move(session)) {
  inputs_ = DescribeSession(*session_.session, true);
  outputs_ = DescribeSession(*session_.session, false);
}

OnnxModel::OnnxModel(std::vector<TensorSpec> inputs, std::vector<TensorSpec> outputs, OnnxLoadReport report)
    : inputs_(std::move(inputs)), outputs_(std::move(outputs)) {
  session_.report = std::move(report);
}

std::vector<Tensor> RunSession(Ort::Session& session, const std::vector<Tensor>& inputs, const std::vector<std::string>& outputs) {
  Ort::MemoryInfo memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
  std::vector<Ort::Value> values;
  std::vector<const char*> inputNames, outputNames;
  for (const Tensor& t : inputs) {
    size_t elements = 1;
    for (int64_t d : t.shape) elements *= static_cast<size_t>(d);
    if (elements * ElementSize(t.type) != t.bytes.size()) throw std::invalid_argument("tensor '" + t.name + "' data does not fill its shape");
    values.push_back(Ort::Value::CreateTensor(memory, const_cast<uint8_t*>(t.bytes.data()), t.bytes.size(), t.shape.data(),
                                              t.shape.size(), t.type));
    inputNames.push_back(t.name.c_str());
  }
  for (const std::string& name : outputs) outputNames.push_back(name.c_str());
  std::vector<Ort::Value> results = session.Run(Ort::RunOptions{nullptr}, inputNames.data(), values.data(),
                                                          values.size(), outputNames.data(), outputNames.size());
  std::vector<Tensor> out;
  for (size_t i = 0; i < results.size(); ++i) {
    auto info = results[i].GetTensorTypeAndShapeInfo();
    Tensor t;
    t.name = outputs[i];
    t.type = info.GetElementType();
    t.shape = info.GetShape();
    t.bytes.resize(info.GetElementCount() * ElementSize(t.type));
    if (!t.bytes.empty()) std::memcpy(t.bytes.data(), results[i].GetTensorRawData(), t.bytes.size());
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<Tensor> OnnxModel::Run(const std::vector<Tensor>& inputs, const std::vector<std::string>& outputs) const {
  if (!session_.session) throw std::logic_error("a model in parts must override Run");
  return RunSession(*session_.session, inputs, outputs);
}

const TensorSpec* OnnxModel::FindInput(const std::string& name) const {
  for (const TensorSpec& s : inputs_)
    if (s.name == name) return &s;
  return nullptr;
}

const TensorSpec* OnnxModel::FindOutput(const std::string& name) const {
  for (const TensorSpec& s : outputs_)
    if (s.name == name) return &s;
  return nullptr;
}

const TensorSpec& OnnxModel::RequireInput(const std::string& name, ONNXTensorElementDataType type) const {
  const TensorSpec* spec = FindInput(name);
  std::string names;
  for (const TensorSpec& s : inputs_) names += (names.empty() ? "" : ", ") + s.name;
  if (spec == nullptr) throw std::runtime_error("MODEL_PACK_INVALID: the model has no input '" + name + "' (its inputs: " + names + ")");
  if (spec->type != type) {
    throw std::runtime_error("MODEL_PACK_INVALID: input '" + name + "' is " + TensorTypeName(spec->type) + ", expected " +
                             TensorTypeName(type));
  }
  return *spec;
}

}  // namespace svc
