// Per-environment state (the main thread and each worker_thread has its own): the one
// thread-safe function through which pool threads hand results back to JS, and the bookkeeping
// that lets the environment's teardown wait for its own native work.
#pragma once

#include <napi.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <map>

namespace svc {

class EnvContext;
using MainThreadFn = std::function<void(Napi::Env)>;

void RunOnMainThread(Napi::Env env, Napi::Function, EnvContext* context, MainThreadFn* fn);
using DeliveryTsfn = Napi::TypedThreadSafeFunction<EnvContext, MainThreadFn, RunOnMainThread>;

class EnvContext {
 public:
  static std::shared_ptr<EnvContext> Create(Napi::Env env);

  // Any thread: queue `fn` to run on the main thread. False once the environment is closing.
  bool Post(MainThreadFn fn);

  // Main thread: while some JS promise awaits native work, the process must stay alive.
  void AddAwaiter(Napi::Env env);
  void RemoveAwaiter(Napi::Env env);

  // Any thread: count native tasks, so teardown can wait for them.
  void TaskStarted();
  void TaskFinished();

  // Streams register how to cancel them, so teardown can stop them; they untrack when done.
  uint64_t Track(std::function<void()> cancel);
  void Untrack(uint64_t id);

  static std::atomic<int64_t> activeTasks;

 private:
  void Close();  // env cleanup hook

  std::mutex mutex_;
  std::condition_variable idle_;
  bool closing_ = false;
  int tasks_ = 0;
  int awaiters_ = 0;
  uint64_t nextId_ = 0;
  std::map<uint64_t, std::function<void()>> cancellers_;
  DeliveryTsfn tsfn_;
};

}  // namespace svc
