// Native threads that run synthesis tasks, so the libuv pool and the event loop are never held by
// speech work (a text waiting for an espeak-ng copy would otherwise park libuv threads).
#pragma once

#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <vector>

namespace svc {

class WorkerPool {
 public:
  // Each pool thread's stack, set explicitly: a default thread gets RLIMIT_STACK, which may be
  // small or unlimited. flite's regex matcher recurses about 128 bytes per character of one token
  // (a 70 000-character token overflowed 8 MiB: issue 7, case 3); within the native bounds
  // (backends/input_limits.h: runs of at most 128 bytes) the deepest measured use is 0.05 MiB (espeak-ng) and
  // 0.02 MiB (flite) (bench/native/stack-depth). 8 MiB leaves a wide margin and would still hold a
  // 60 000-byte flite token.
  static constexpr size_t kStackBytes = 8u << 20;

  // The process-wide pool; its size and its threads' niceness are fixed by the first call.
  // `nice` is added to the process's niceness on every synthesis thread (espeak-ng's too): the
  // event loop, at the process's own priority, then runs as soon as audio is posted to it, even
  // where the scheduler put it on the CPU a synthesis thread is busy on.
  static WorkerPool& Instance(unsigned threads = 0, int nice = 0);
  // espeak-ng's own threads, at most one for each of its copies (the first call fixes how many;
  // 0 is 1): a thread whose text waited for a copy would hold a slot that other streams need. It
  // starts with one thread, and starts another only when a task finds every thread busy.
  static WorkerPool& Espeak(unsigned threads = 0);

  // `owner` (an environment) and `tag` (a stream) mark the task so that Drop can take it back
  // before it starts. `first` tasks (a request's first chunk) run before all others, in order: a
  // new request's first audio does not wait behind the chunks other streams synthesise ahead.
  void Submit(const void* owner, std::function<void()> task, bool first = false, const void* tag = nullptr);
  // Removes every queued (not yet started) task of `owner`, or only those of `owner` and `tag`;
  // returns them, to be destroyed by the caller outside the pool's lock.
  std::vector<std::function<void()>> Drop(const void* owner, const void* tag = nullptr);
  // Threads started (Instance()'s start at once).
  unsigned Size() {
    std::lock_guard<std::mutex> lock(mutex_);
    return static_cast<unsigned>(threads_.size());
  }
  size_t Queued();

  // Any thread: `bytes` of audio were freed (read, or dropped with a stream). glibc keeps freed
  // memory inside its heaps, so after many streams let go of their audio RSS would stay at its
  // peak (issue 20, case 23): once kTrimBytes were freed, a pool thread with nothing to do hands
  // the free pages back to the system (malloc_trim), at most once every kTrimIntervalMs.
  static void Freed(int64_t bytes);
  static constexpr int64_t kTrimBytes = int64_t{64} << 20;
  static constexpr int kTrimIntervalMs = 1000;

 private:
  struct Task {
    const void* owner;
    const void* tag;
    std::function<void()> run;
  };

  // `start` threads now, up to `threads` as tasks wait.
  WorkerPool(unsigned threads, unsigned start);
  // With the pool's lock held: starts a thread; pthread_create's error (0 when started).
  int StartThread();
  static void* ThreadMain(void* pool);
  void Run();
  // With the pool's lock held, while there is no task: trims if it is due, else waits for a task
  // or until a trim is due.
  void Idle(std::unique_lock<std::mutex>& lock);

  static std::atomic<int64_t> freedSinceTrim_;
  static std::atomic<WorkerPool*> trimmer_;  // the pool woken when a trim falls due

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Task> firsts_;
  std::deque<Task> tasks_;
  std::vector<pthread_t> threads_;
  const unsigned maxThreads_;
  unsigned running_ = 0;  // threads running a task
};

}  // namespace svc
