// Per-environment state (the main thread and each worker_thread has its own): the one
// thread-safe function through which pool threads hand results back to JS, and the bookkeeping
// that lets the environment's teardown stop its own native work without waiting behind others'.
#pragma once

#include <napi.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>

namespace svc {

class EnvContext;
class WorkerPool;
using MainThreadFn = std::function<void(Napi::Env)>;

void RunOnMainThread(Napi::Env env, Napi::Function, EnvContext* context, MainThreadFn* fn);
using DeliveryTsfn = Napi::TypedThreadSafeFunction<EnvContext, MainThreadFn, RunOnMainThread>;

// True while `env` may still run JavaScript (and so create JS values). It turns false when a
// worker is terminated or the process exits, while the loop still dispatches native callbacks.
bool CanRunJs(napi_env env);

class EnvContext : public std::enable_shared_from_this<EnvContext> {
 public:
  static std::shared_ptr<EnvContext> Create(Napi::Env env);

  // Any thread: queue `fn` to run on the main thread. False once the environment is closing;
  // `fn` is then never run.
  bool Post(MainThreadFn fn);

  // Any thread: run `task` on the worker pool, counted as this environment's work. A task still
  // queued when the environment closes is dropped, never run; one already running is waited for.
  // False (and `task` dropped) once the environment is closing.
  bool Submit(std::function<void()> task);
  bool Submit(std::function<void()> task, WorkerPool& pool, bool first = false, const void* tag = nullptr);
  // Any thread: drops this environment's tasks with `tag` still queued on `pool` (a cancelled
  // stream's chunks), so that nothing runs for a reader that is gone.
  void Withdraw(WorkerPool& pool, const void* tag);

  // Any thread: native memory that this environment's JS objects hold (a stream's unread audio)
  // grew by `bytes` (shrank, when negative). V8 is told on the main thread, as external memory:
  // it cannot see these buffers, and would otherwise collect dropped streams only by chance.
  // Changes made on other threads are posted to it once they add up to kReportStep; the main
  // thread's own calls into a stream report after them (ReportExternal).
  void AdjustExternal(int64_t bytes);
  // Main thread: tells V8 the changes not reported yet; nothing once the environment is closing
  // (its isolate goes with it).
  void ReportExternal(Napi::Env env);
  // Main thread: the external memory V8 has been told of, in bytes.
  int64_t ReportedExternal() const { return reported_; }
  // V8 acts on tens of megabytes; a post for each stretch of audio would cost the event loop a
  // callback each (two a stretch: 2900 for 4.7 minutes of audio).
  static constexpr int64_t kReportStep = 256 << 10;

  // Main thread: while some JS promise awaits native work, the process must stay alive.
  void AddAwaiter(Napi::Env env);
  void RemoveAwaiter(Napi::Env env);

  // Any thread: count native work done outside the pool, so teardown can wait for it.
  void TaskStarted();
  void TaskFinished(int count = 1);

  // Streams register how to cancel them, so teardown can stop them; they untrack when done.
  uint64_t Track(std::function<void()> cancel);
  void Untrack(uint64_t id);

  // Any thread: the environment can no longer run JS; nothing more is posted to it.
  void MarkClosing();

  static std::atomic<int64_t> activeTasks;

 private:
  void Close();  // env cleanup hook

  std::mutex mutex_;
  std::condition_variable idle_;  // Close() waits on it for the tasks and the posts under way
  std::atomic<bool> closing_{false};
  std::atomic<int> posting_{0};  // posts between their check of closing_ and their call
  int tasks_ = 0;
  int awaiters_ = 0;
  uint64_t nextId_ = 0;
  std::map<uint64_t, std::function<void()>> cancellers_;
  DeliveryTsfn tsfn_;
  // External memory not yet reported, and whether a report is posted: changes from every thread
  // meet in one report at a time.
  std::atomic<int64_t> unreported_{0};
  std::atomic<bool> reportPosted_{false};
  int64_t reported_ = 0;  // main thread
};

}  // namespace svc
