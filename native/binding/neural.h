// The JS surface of the neural backends: load a Piper or Kokoro pack (off the main thread), run a
// loaded session raw (for tests and tools), unload it; and the lookup the stream uses.
#pragma once

#include <napi.h>

#include <memory>

#include "backends/neural/model.h"

namespace svc {

void ExportNeural(Napi::Env env, Napi::Object exports);

// A loaded model by the handle loadModel gave JS; null if unknown or unloaded.
std::shared_ptr<NeuralModel> FindModel(uint32_t handle);

}  // namespace svc
