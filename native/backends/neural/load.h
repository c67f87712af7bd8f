// Loading a Piper or Kokoro pack: its ONNX session (or, for Piper, the model cut before its
// vocoder), checked against the pack's config and warmed up. Blocking: call it off the main thread.
#pragma once

#include <memory>
#include <string>

#include "backends/neural/kokoro.h"
#include "backends/neural/model.h"
#include "backends/neural/piper.h"
#include "onnx/runtime.h"

namespace svc {

struct NeuralModelSpec {
  enum class Type { Piper, Kokoro } type = Type::Piper;
  OnnxSessionOptions session;
  PiperConfig piper;    // Piper
  KokoroConfig kokoro;  // Kokoro
};

// Throws std::runtime_error whose message starts with MODEL_PACK_INVALID: or DEVICE_UNAVAILABLE:
// (onnx/runtime.h) for a pack that does not load or fit.
std::shared_ptr<NeuralModel> LoadNeuralModel(const NeuralModelSpec& spec);

}  // namespace svc
