#include "env_context.h"

namespace svc {

std::atomic<int64_t> EnvContext::activeTasks{0};

void RunOnMainThread(Napi::Env env, Napi::Function, EnvContext*, MainThreadFn* fn) {
  if (env != nullptr && fn != nullptr) (*fn)(env);  // env is null while the environment tears down
  delete fn;
}

std::shared_ptr<EnvContext> EnvContext::Create(Napi::Env env) {
  auto context = std::make_shared<EnvContext>();
  context->tsfn_ = DeliveryTsfn::New(env, "svc-tts-delivery", 0, 1, context.get());
  context->tsfn_.Unref(env);
  // The hook owns a reference, so the context outlives every task that still holds one.
  auto* hookRef = new std::shared_ptr<EnvContext>(context);
  env.AddCleanupHook([hookRef] {
    (*hookRef)->Close();
    delete hookRef;
  });
  return context;
}

bool EnvContext::Post(MainThreadFn fn) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (closing_) return false;
  auto* data = new MainThreadFn(std::move(fn));
  if (tsfn_.NonBlockingCall(data) != napi_ok) {
    delete data;
    return false;
  }
  return true;
}

void EnvContext::AddAwaiter(Napi::Env env) {
  if (awaiters_++ == 0) tsfn_.Ref(env);
}

void EnvContext::RemoveAwaiter(Napi::Env env) {
  if (awaiters_ > 0 && --awaiters_ == 0) tsfn_.Unref(env);
}

void EnvContext::TaskStarted() {
  activeTasks.fetch_add(1);
  std::lock_guard<std::mutex> lock(mutex_);
  ++tasks_;
}

void EnvContext::TaskFinished() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    --tasks_;
  }
  activeTasks.fetch_sub(1);
  idle_.notify_all();
}

uint64_t EnvContext::Track(std::function<void()> cancel) {
  std::lock_guard<std::mutex> lock(mutex_);
  cancellers_[++nextId_] = std::move(cancel);
  return nextId_;
}

void EnvContext::Untrack(uint64_t id) {
  std::lock_guard<std::mutex> lock(mutex_);
  cancellers_.erase(id);
}

void EnvContext::Close() {
  std::map<uint64_t, std::function<void()>> cancellers;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
    cancellers.swap(cancellers_);
  }
  for (auto& entry : cancellers) entry.second();
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [this] { return tasks_ == 0; });
  tsfn_.Release();
}

}  // namespace svc
