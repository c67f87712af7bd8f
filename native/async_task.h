// Runs a blocking native call on the worker pool and settles a promise with its result on the
// main thread. `work` never touches JS; `toJs` runs on the main thread.
#pragma once

#include <napi.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "env_context.h"
#include "pool.h"

namespace svc {

template <typename Work, typename ToJs>
Napi::Value RunAsync(Napi::Env env, Work work, ToJs toJs) {
  auto deferred = Napi::Promise::Deferred::New(env);
  std::shared_ptr<EnvContext> context = *env.GetInstanceData<std::shared_ptr<EnvContext>>();
  auto shared = std::make_shared<Napi::Promise::Deferred>(deferred);
  context->AddAwaiter(env);
  context->TaskStarted();
  WorkerPool::Instance().Submit([context, shared, work = std::move(work), toJs = std::move(toJs)]() mutable {
    using Result = decltype(work());
    auto result = std::make_shared<Result>();
    std::string failure;
    try {
      *result = work();
    } catch (const std::exception& e) {
      failure = e.what();
    }
    context->Post([context, shared, result, failure, toJs](Napi::Env e) {
      context->RemoveAwaiter(e);
      if (!failure.empty()) shared->Reject(Napi::Error::New(e, failure).Value());
      else shared->Resolve(toJs(e, *result));
    });
    context->TaskFinished();
  });
  return deferred.Promise();
}

}  // namespace svc
