// What the addon keeps per environment (its instance data): the main thread and each
// worker_thread has its own.
#pragma once

#include <napi.h>

#include <memory>

#include "binding/env_context.h"

namespace svc {

struct AddonData {
  std::shared_ptr<EnvContext> context;
  Napi::FunctionReference modelClass;  // NativeModel: loadModel() makes its objects

  static AddonData& Of(Napi::Env env) { return *env.GetInstanceData<AddonData>(); }
};

}  // namespace svc
