// A loaded ONNX model: its inputs and outputs, where it runs, and runs of it with a plain tensor
// type (also exposed raw to JS, so tests compare against the engine).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "onnx/runtime.h"

namespace svc {

struct Tensor {
  std::string name;
  ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;

  static Tensor Int64(const std::string& name, std::vector<int64_t> shape, const std::vector<int64_t>& values);
  static Tensor Int32(const std::string& name, std::vector<int64_t> shape, const std::vector<int32_t>& values);
  static Tensor Float(const std::string& name, std::vector<int64_t> shape, const std::vector<float>& values);
  std::vector<float> Floats() const;  // float32 data (throws for another type)
};

struct TensorSpec {
  std::string name;
  ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  std::vector<int64_t> shape;  // -1 for a dynamic dimension
};

const char* TensorTypeName(ONNXTensorElementDataType type);
// The type a tensor can be run with, by its TensorTypeName (float32, int64, int32); throws
// std::invalid_argument for any other.
ONNXTensorElementDataType ParseTensorType(const std::string& name);

std::vector<TensorSpec> DescribeSession(Ort::Session& session, bool inputs);

// Runs `session` on the calling thread (ORT sessions are thread-safe); outputs copied out.
std::vector<Tensor> RunSession(Ort::Session& session, const std::vector<Tensor>& inputs, const std::vector<std::string>& outputs);

class OnnxModel {
 public:
  explicit OnnxModel(OnnxSession session);
  // A model that runs in parts of its own (it overrides Run): its interface, and where it runs.
  OnnxModel(std::vector<TensorSpec> inputs, std::vector<TensorSpec> outputs, OnnxLoadReport report);
  virtual ~OnnxModel() = default;

  // Thread-safe (ORT sessions are): runs on the calling (pool) thread.
  virtual std::vector<Tensor> Run(const std::vector<Tensor>& inputs, const std::vector<std::string>& outputs) const;

  const std::vector<TensorSpec>& Inputs() const { return inputs_; }
  const std::vector<TensorSpec>& Outputs() const { return outputs_; }
  const OnnxLoadReport& Report() const { return session_.report; }

 protected:
  const TensorSpec* FindInput(const std::string& name) const;
  const TensorSpec* FindOutput(const std::string& name) const;
  // Throws MODEL_PACK_INVALID unless the input exists with that element type.
  const TensorSpec& RequireInput(const std::string& name, ONNXTensorElementDataType type) const;

 private:
  OnnxSession session_;
  std::vector<TensorSpec> inputs_;
  std::vector<TensorSpec> outputs_;
};

}  // namespace svc
