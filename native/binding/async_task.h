// Runs a blocking native call on the worker pool and settles a promise with its result on the
// main thread. `work` never touches JS; `toJs` runs on the main thread. A failure rejects with
// an Error whose `code` says what kind of failure it was (js_error.h).
#pragma once

#include <napi.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "base/errors.h"
#include "binding/addon_data.h"
#include "binding/js_error.h"

namespace svc {

// Settles a promise from any thread, through the environment's one delivery channel.
template <typename Result, typename ToJs>
class Settler {
 public:
  Settler(Napi::Env env, ToJs toJs)
      : context_(AddonData::Of(env).context),
        deferred_(std::make_shared<Napi::Promise::Deferred>(Napi::Promise::Deferred::New(env))),
        toJs_(std::move(toJs)) {}

  Napi::Promise Promise() const { return deferred_->Promise(); }
  const std::shared_ptr<EnvContext>& Context() const { return context_; }

  // Any thread: `produce()` is called here; its result (or failure) is handed to the main thread.
  template <typename Produce>
  void Run(Produce produce) const {
    auto result = std::make_shared<Result>();
    const char* failureCode = nullptr;
    std::string failure;
    try {
      *result = produce();
    } catch (const std::exception& e) {
      failureCode = CodeOf(e);
      failure = e.what();
    }
    context_->Post([context = context_, deferred = deferred_, result, failureCode, failure, toJs = toJs_](Napi::Env e) {
      context->RemoveAwaiter(e);
      if (failureCode != nullptr) deferred->Reject(JsError(e, failureCode, failure).Value());
      else deferred->Resolve(toJs(e, *result));
    });
  }

 private:
  std::shared_ptr<EnvContext> context_;
  std::shared_ptr<Napi::Promise::Deferred> deferred_;
  ToJs toJs_;
};

template <typename Work, typename ToJs>
Napi::Value RunAsync(Napi::Env env, Work work, ToJs toJs) {
  using Result = decltype(work());
  Settler<Result, ToJs> settler(env, std::move(toJs));
  settler.Context()->AddAwaiter(env);
  const bool queued = settler.Context()->Submit([settler, work = std::move(work)]() mutable { settler.Run(work); });
  if (!queued) settler.Context()->RemoveAwaiter(env);  // the environment is closing: nothing will settle
  return settler.Promise();
}

}  // namespace svc
