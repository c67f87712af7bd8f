// A fixed set of native threads that run synthesis tasks, so the libuv pool and the event loop
// are never held by speech work (espeak-ng's lock would otherwise park libuv threads).
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace svc {

class WorkerPool {
 public:
  // The process-wide pool; its size is fixed by the first call.
  static WorkerPool& Instance(unsigned threads = 0);

  void Submit(std::function<void()> task);
  unsigned Size() const { return static_cast<unsigned>(threads_.size()); }
  size_t Queued();

 private:
  explicit WorkerPool(unsigned threads);
  void Run();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> tasks_;
  std::vector<std::thread> threads_;
};

}  // namespace svc
