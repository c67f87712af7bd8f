// NativeModel: a loaded Piper or Kokoro model as a JS object. It owns the model: unload() (or the
// object's collection) lets it go, and it is freed once the streams still speaking with it end.
// loadModel(spec) makes one off the main thread; a plan names it as its `model`.
#pragma once

#include <napi.h>

#include <memory>

#include "backends/neural/model.h"
#include "binding/js_arg.h"

namespace svc {

class NativeModel : public Napi::ObjectWrap<NativeModel> {
 public:
  static Napi::Function Define(Napi::Env env);
  // The model `value` holds; refuses anything but a NativeModel, and one unloaded.
  static std::shared_ptr<NeuralModel> Loaded(const JsArg& value);
  // Made by loadModel() only: `info[0]` holds the model.
  explicit NativeModel(const Napi::CallbackInfo& info);

 private:
  // run(inputs, outputs): one raw session run (for tests and tools), off the main thread.
  Napi::Value Run(const Napi::CallbackInfo& info);
  void Unload(const Napi::CallbackInfo& info);

  std::shared_ptr<NeuralModel> model_;  // null once unloaded
};

// loadModel(spec) -> Promise<{ model: NativeModel, info }>.
Napi::Value LoadModel(const Napi::CallbackInfo& info);
// onnxRuntimeVersion() -> "1.29.0 (API 29)".
Napi::Value OnnxRuntimeVersion(const Napi::CallbackInfo& info);

}  // namespace svc
