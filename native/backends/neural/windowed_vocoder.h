// A VITS voice cut before its vocoder (HiFi-GAN: convolutions only, so each output sample depends
// on a few latent frames around it). The vocoder then runs on windows of the latent, each with the
// frames of context it reaches, so a piece's first audio waits for the text side and one short
// window instead of the whole piece, and the audio is the whole run's.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "onnx/model.h"
#include "onnx/runtime.h"
#include "onnx/split.h"

namespace svc {

class WindowedVocoder {
 public:
  // Cuts the model file at the input of `boundaryNode` (SplitOnnxModel), loads both parts with
  // `options`, then measures how far the vocoder reaches (a one-frame change to a probe latent)
  // and checks that windows reproduce a whole run; the parts and what was found go to
  // options.cache, and come from it when it has them. Returns nullptr, with the reason in `why`,
  // where any of it fails: the caller then loads the model whole.
  static std::unique_ptr<WindowedVocoder> Open(const OnnxSessionOptions& options, const std::string& boundaryNode,
                                               std::string& why);

  // The whole model's interface: its inputs (all kept by the text side) and outputs, in order.
  const std::vector<TensorSpec>& Inputs() const { return inputs_; }
  const std::vector<TensorSpec>& Outputs() const { return outputs_; }
  OnnxLoadReport Report() const;  // where the parts run, and the convolutions lifted in both

  // The text side: `outputs` must start with Cut(); the latent comes back first, [1, channels, frames].
  std::vector<Tensor> RunHead(const std::vector<Tensor>& inputs, const std::vector<std::string>& outputs) const;
  // Audio of latent frames [start, end): the vocoder on them and their context. `inputs`: the
  // request's, for the graph inputs the vocoder also takes (a speaker id).
  std::vector<float> Decode(const Tensor& latent, int64_t start, int64_t end, const std::vector<Tensor>& inputs) const;
  // The vocoder on the whole latent: the model's audio output as the whole model makes it.
  Tensor RunVocoder(const Tensor& latent, const std::vector<Tensor>& inputs) const;

  const std::string& Cut() const { return cut_; }
  int64_t SamplesPerFrame() const { return hop_; }
  int64_t ContextFrames() const { return context_; }

 private:
  WindowedVocoder() = default;
  // The parts and findings options.cache keeps for this model; nullptr where it has none whole.
  static std::unique_ptr<WindowedVocoder> FromCache(const OnnxSessionOptions& options);
  // Reads the parts' inputs and outputs; `outputs`: the whole model's output names, in order.
  void Describe(const std::vector<std::string>& outputs);
  // The probe (see Load): sets the context and samples per frame; false, with why, where windows do not fit.
  bool Measure(std::string& why);

  OnnxSession head_, tail_;
  std::string cut_;
  std::vector<std::string> tailInputs_;  // after the cut
  std::string tailOutput_;
  std::vector<TensorSpec> inputs_, outputs_;
  int64_t channels_ = 0;
  int64_t hop_ = 0;
  int64_t context_ = 0;
};

}  // namespace svc
