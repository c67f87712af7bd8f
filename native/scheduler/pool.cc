#include "scheduler/pool.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace svc {
namespace {

using Clock = std::chrono::steady_clock;

void TrimHeap() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

// The last trim, and the lock under which one idle thread claims the next.
std::mutex trimMutex;
Clock::time_point lastTrim;

// An idle thread's turn: to trim now (the freed count is taken), or to wait until a trim is due.
struct TrimTurn {
  bool claimed = false;
  std::optional<Clock::time_point> due;  // none: too little was freed yet
};

TrimTurn ClaimTrim(std::atomic<int64_t>& freed) {
  std::lock_guard<std::mutex> lock(trimMutex);
  const int64_t bytes = freed.load();
  if (bytes < WorkerPool::kTrimBytes) return {};
  const Clock::time_point due = lastTrim + std::chrono::milliseconds(WorkerPool::kTrimIntervalMs);
  if (Clock::now() < due) return {false, due};
  freed -= bytes;
  lastTrim = Clock::now();
  return {true, std::nullopt};
}

// Set once, by the first Instance() call, before any synthesis thread starts: `nice`, and the
// niceness of the thread that made that call (the process's).
int threadNice = 0;
int processNice = 0;

// Sets the calling thread's priority `nice` steps below the process's (Linux schedules threads one
// by one). Not from its own: a thread started by a synthesis thread (espeak-ng's pool grows from
// its own threads) inherits that thread's niceness. Raising niceness needs no privilege; where a
// sandbox refuses it, the thread keeps its priority, which is only slower to hand over audio.
void LowerThisThreadPriority(int nice) {
  if (nice <= 0) return;
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), std::min(processNice + nice, 19));
}

}  // namespace

std::atomic<int64_t> WorkerPool::freedSinceTrim_{0};
std::atomic<WorkerPool*> WorkerPool::trimmer_{nullptr};

WorkerPool& WorkerPool::Instance(unsigned threads, int nice) {
  // Leaked on purpose: threads are detached and may still be parked at exit; every env's
  // cleanup hook first waits for its own running tasks, so none touches freed state.
  // The core count is read only here: glibc reads it from /sys on every call, and every stream asks.
  static WorkerPool* pool = [threads, nice] {
    const unsigned count = threads != 0 ? threads : std::clamp(std::thread::hardware_concurrency(), 2u, 64u);
    threadNice = nice;
    errno = 0;
    const int current = getpriority(PRIO_PROCESS, 0);  // this thread's
    processNice = errno == 0 ? current : 0;
    auto* created = new WorkerPool(count, count);
    trimmer_ = created;
    return created;
  }();
  return *pool;
}

WorkerPool& WorkerPool::Espeak(unsigned threads) {
  static WorkerPool* pool = new WorkerPool(std::max(threads, 1u), 1);  // leaked, like the pool
  return *pool;
}

// std::thread cannot choose its stack size, and the default (RLIMIT_STACK, often 8 MiB) is not
// enough for flite on long tokens, so the threads are plain pthreads with an explicit stack.
WorkerPool::WorkerPool(unsigned threads, unsigned start) : maxThreads_(threads) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (unsigned i = 0; i < start; ++i) {
    const int err = StartThread();
    if (err != 0) throw std::runtime_error(std::string("could not start a synthesis thread: ") + strerror(err));
  }
}

int WorkerPool::StartThread() {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, kStackBytes);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_t thread;
  const int err = pthread_create(&thread, &attr, &WorkerPool::ThreadMain, this);
  pthread_attr_destroy(&attr);
  if (err == 0) threads_.push_back(thread);
  return err;
}

void* WorkerPool::ThreadMain(void* pool) {
  LowerThisThreadPriority(threadNice);
  static_cast<WorkerPool*>(pool)->Run();
  return nullptr;
}

void WorkerPool::Submit(const void* owner, std::function<void()> task, bool first, const void* tag) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    (first ? firsts_ : tasks_).push_back({owner, tag, std::move(task)});
    // Every thread is busy (or already woken for a task): one more, if the pool may grow. Where the
    // system refuses it, the threads there are take the task in turn.
    if (threads_.size() < maxThreads_ && firsts_.size() + tasks_.size() > threads_.size() - running_) StartThread();
  }
  wake_.notify_one();
}

std::vector<std::function<void()>> WorkerPool::Drop(const void* owner, const void* tag) {
  std::vector<std::function<void()>> dropped;
  std::lock_guard<std::mutex> lock(mutex_);
  for (std::deque<Task>* queue : {&firsts_, &tasks_}) {
    for (auto it = queue->begin(); it != queue->end();) {
      if (it->owner == owner && (tag == nullptr || it->tag == tag)) {
        dropped.push_back(std::move(it->run));
        it = queue->erase(it);
      } else {
        ++it;
      }
    }
  }
  return dropped;
}

size_t WorkerPool::Queued() {
  std::lock_guard<std::mutex> lock(mutex_);
  return firsts_.size() + tasks_.size();
}

void WorkerPool::Freed(int64_t bytes) {
  const int64_t before = freedSinceTrim_.fetch_add(bytes);
  WorkerPool* pool = trimmer_.load();
  if (before >= kTrimBytes || before + bytes < kTrimBytes || pool == nullptr) return;
  // Under the pool's lock: a thread about to wait has either seen the sum or gets this wake.
  std::lock_guard<std::mutex> lock(pool->mutex_);
  pool->wake_.notify_one();
}

void WorkerPool::Idle(std::unique_lock<std::mutex>& lock) {
  const TrimTurn turn = ClaimTrim(freedSinceTrim_);
  if (turn.claimed) {
    lock.unlock();  // tasks queued meanwhile go to the other threads
    TrimHeap();
    lock.lock();
  } else if (turn.due) {
    wake_.wait_until(lock, *turn.due);
  } else {
    wake_.wait(lock);
  }
}

void WorkerPool::Run() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      while (firsts_.empty() && tasks_.empty()) Idle(lock);
      std::deque<Task>& queue = firsts_.empty() ? tasks_ : firsts_;
      task = std::move(queue.front().run);
      queue.pop_front();
      ++running_;
    }
    task();
    task = nullptr;  // its captures go before the thread counts as free
    std::lock_guard<std::mutex> lock(mutex_);
    --running_;
  }
}

}  // namespace svc
