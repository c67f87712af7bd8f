// What the Piper and Kokoro backends share: a loaded ONNX session, its inputs and outputs, and a
// plain tensor type for running it (also exposed raw to JS, so tests compare against the engine).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/backend.h"
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

// A piece's audio as a neural model makes it: float samples at the model's rate, and word timings.
struct PieceAudio {
  int sampleRate = 0;
  std::vector<float> samples;
  std::vector<WordTiming> words;
};

struct TensorSpec {
  std::string name;
  ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  std::vector<int64_t> shape;  // -1 for a dynamic dimension
};

const char* TensorTypeName(ONNXTensorElementDataType type);

std::vector<TensorSpec> DescribeSession(Ort::Session& session, bool inputs);

// Runs `session` on the calling thread (ORT sessions are thread-safe); outputs copied out.
std::vector<Tensor> RunSession(Ort::Session& session, const std::vector<Tensor>& inputs, const std::vector<std::string>& outputs);

// Float audio in [-1, 1] to the sink as 16-bit samples.
void HandOnAudio(const float* samples, size_t count, AudioSink& sink);

class OnnxModel : public Backend {
 public:
  explicit OnnxModel(OnnxSession session);
  // A model that runs in parts of its own (it overrides Run): its interface, and where it runs.
  OnnxModel(std::vector<TensorSpec> inputs, std::vector<TensorSpec> outputs, OnnxLoadReport report);

  // The Backend interface: the whole piece from SpeakPiece, into the sink as 16-bit samples.
  bool Speak(const SpeakJob& job, const VoiceParams& voice, const std::atomic<bool>& cancelled, AudioSink& sink,
             std::vector<WordTiming>& words) override;

  // One piece in one model run (or a few, under a model's token limit).
  virtual bool SpeakPiece(const SpeakJob& job, const VoiceParams& voice, const std::atomic<bool>& cancelled,
                          PieceAudio& out) = 0;

  // Thread-safe (ORT sessions are): runs on the calling (pool) thread.
  virtual std::vector<Tensor> Run(const std::vector<Tensor>& inputs, const std::vector<std::string>& outputs) const;

  const std::vector<TensorSpec>& Inputs() const { return inputs_; }
  const std::vector<TensorSpec>& Outputs() const { return outputs_; }
  const OnnxLoadReport& Report() const { return session_.report; }

  virtual const char* Type() const = 0;
  virtual int SampleRate() const = 0;
  virtual std::vector<std::string> Speakers() const = 0;
  virtual bool HasDurations() const = 0;

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

namespace svc {

// Word timings from the samples each token lasts: word i spans tokens [wordTokens[i].first,
// wordTokens[i].second). The token times are scaled to `totalSamples` (the audio actually made)
// and shifted by `offset`.
void AppendWordTimings(const std::vector<double>& tokenSamples, const std::vector<std::pair<size_t, size_t>>& wordTokens,
                       const std::vector<int32_t>& charStarts, int64_t totalSamples, int64_t offset,
                       std::vector<WordTiming>& out);

}  // namespace svc
