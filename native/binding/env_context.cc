#include "binding/env_context.h"

#include <cstdlib>
#include <vector>

#include "scheduler/pool.h"

namespace svc {

std::atomic<int64_t> EnvContext::activeTasks{0};

bool CanRunJs(napi_env env) {
  // Node stops an environment (worker.terminate(), process.exit()) by refusing every call that
  // could run JS, with napi_pending_exception although none is pending. napi_strict_equals is
  // the cheapest such call; it creates nothing.
  bool pending = false;
  if (napi_is_exception_pending(env, &pending) != napi_ok || pending) return false;
  napi_value undefined;
  bool same = false;
  return napi_get_undefined(env, &undefined) == napi_ok && napi_strict_equals(env, undefined, undefined, &same) == napi_ok;
}

// The thread-safe function's callback: nothing may escape it (an exception here aborts the
// process), and nothing may create JS values once the environment is stopping.
void RunOnMainThread(Napi::Env env, Napi::Function, EnvContext* context, MainThreadFn* fn) {
  std::unique_ptr<MainThreadFn> owned(fn);
  if (env == nullptr || !CanRunJs(env)) {
    if (context != nullptr) context->MarkClosing();
    return;
  }
  if (!owned) return;
  try {
    (*owned)(env);
  } catch (const Napi::Error& e) {
    // Only when JS stopped part-way through; otherwise a JS error the callback could not handle.
    if (CanRunJs(env)) e.ThrowAsJavaScriptException();
  } catch (...) {
    // A C++ failure on the main thread with no promise to reject: report it as an uncaught error.
    if (CanRunJs(env)) Napi::Error::New(env, "svc-tts: internal error while delivering a result").ThrowAsJavaScriptException();
  }
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

// Without the context's lock: the call takes the thread-safe function's own lock and makes a system
// call that wakes the main thread, which would then wait on this lock to start its next stream.
// Close() marks closing, then waits for the posts under way before it releases the function: each
// post counts itself before it reads the mark (both sequentially consistent), so either it sees
// the mark or Close() sees it counted.
bool EnvContext::Post(MainThreadFn fn) {
  posting_.fetch_add(1);
  bool posted = false;
  if (!closing_.load()) {
    auto* data = new MainThreadFn(std::move(fn));
    posted = tsfn_.NonBlockingCall(data) == napi_ok;
    if (!posted) delete data;
  }
  if (posting_.fetch_sub(1) == 1 && closing_.load()) {
    std::lock_guard<std::mutex> lock(mutex_);  // Close() waits under it: the notification is not lost
    idle_.notify_all();
  }
  return posted;
}

bool EnvContext::Submit(std::function<void()> task) { return Submit(std::move(task), WorkerPool::Instance()); }

bool EnvContext::Submit(std::function<void()> task, WorkerPool& pool, bool first, const void* tag) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (closing_.load()) return false;
    ++tasks_;
  }
  activeTasks.fetch_add(1);
  pool.Submit(
      this,
      [self = shared_from_this(), task = std::move(task)] {
        task();
        self->TaskFinished();  // last: teardown waits for this, and frees nothing the task touches
      },
      first, tag);
  return true;
}

void EnvContext::Withdraw(WorkerPool& pool, const void* tag) {
  // Destroyed after TaskFinished, outside every lock: a dropped task may hold the last reference
  // to its stream.
  std::vector<std::function<void()>> dropped = pool.Drop(this, tag);
  if (!dropped.empty()) TaskFinished(static_cast<int>(dropped.size()));
}

void EnvContext::AdjustExternal(int64_t bytes) {
  const int64_t unreported = unreported_.fetch_add(bytes) + bytes;
  if (std::llabs(unreported) < kReportStep || reportPosted_.exchange(true)) return;
  if (!Post([self = shared_from_this()](Napi::Env env) { self->ReportExternal(env); })) reportPosted_ = false;
}

// Main thread only: V8's count of external memory is the isolate's.
void EnvContext::ReportExternal(Napi::Env env) {
  if (!CanRunJs(env)) return;
  reportPosted_ = false;  // before taking the sum: a change made after it posts the next report
  const int64_t bytes = unreported_.exchange(0);
  if (bytes == 0) return;
  Napi::MemoryManagement::AdjustExternalMemory(env, bytes);
  reported_ += bytes;
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

void EnvContext::TaskFinished(int count) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    tasks_ -= count;
  }
  activeTasks.fetch_sub(count);
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

void EnvContext::MarkClosing() {
  std::lock_guard<std::mutex> lock(mutex_);
  closing_.store(true);
}

void EnvContext::Close() {
  std::map<uint64_t, std::function<void()>> cancellers;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closing_.store(true);
    cancellers.swap(cancellers_);
  }
  for (auto& entry : cancellers) entry.second();
  // Work still queued behind other environments' synthesis is dropped, not waited for; only
  // tasks already running (and now cancelled) are. Dropped closures are destroyed here, on the
  // closing thread, outside the pool's lock.
  bool busy;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    busy = tasks_ > 0;
  }
  if (busy) {  // else the pool may not even exist yet
    for (WorkerPool* pool : {&WorkerPool::Instance(), &WorkerPool::Espeak()}) {
      std::vector<std::function<void()>> dropped = pool->Drop(this);
      if (!dropped.empty()) TaskFinished(static_cast<int>(dropped.size()));
    }
  }
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [this] { return tasks_ == 0 && posting_.load() == 0; });
  tsfn_.Release();
}

}  // namespace svc
