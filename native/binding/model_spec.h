// A Piper or Kokoro pack's description from JavaScript (lib/native.ts NativeModelSpec), validated
// in TypeScript and copied into the loader's plain structs on the main thread.
#pragma once

#include "backends/neural/load.h"
#include "binding/js_arg.h"

namespace svc {

// Throws as JsArg does, and std::invalid_argument for a device name the runtime does not know:
// call it inside ThrowingCoded (js_error.h).
NeuralModelSpec ReadModelSpec(const JsArg& spec);

}  // namespace svc
