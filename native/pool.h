// A fixed set of native threads that run synthesis tasks, so the libuv pool and the event loop
// are never held by speech work (espeak-ng's lock would otherwise park libuv threads).
#pragma once

#include <pthread.h>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <vector>

namespace svc {

class WorkerPool {
 public:
  // Each pool thread's stack: flite's regex matcher recurses per character of a token, deeper
  // than the 8 MiB a default thread gets allows on long tokens (issue 7, case 3).
  static constexpr size_t kStackBytes = 64u << 20;

  // The process-wide pool; its size is fixed by the first call.
  static WorkerPool& Instance(unsigned threads = 0);

  // `owner` tags the task so that Drop(owner) can take it back before it starts.
  void Submit(const void* owner, std::function<void()> task);
  // Removes every queued (not yet started) task of `owner`; returns them, to be destroyed by the
  // caller outside the pool's lock.
  std::vector<std::function<void()>> Drop(const void* owner);
  unsigned Size() const { return static_cast<unsigned>(threads_.size()); }
  size_t Queued();

 private:
  struct Task {
    const void* owner;
    std::function<void()> run;
  };

  explicit WorkerPool(unsigned threads);
  static void* ThreadMain(void* pool);
  void Run();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Task> tasks_;
  std::vector<pthread_t> threads_;
};

}  // namespace svc
