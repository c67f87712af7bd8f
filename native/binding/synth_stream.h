// SynthStream: a pull-based native audio stream. JS calls next(); pool threads synthesize the
// planned chunks, at most `queueCapacity` at once and until `aheadSeconds` of audio wait unread,
// and the reader gets them in order. A session appends chunks as it plans them, on one stream
// (one place in the pool's schedule). A full queue parks synthesis (no task is scheduled), never
// the event loop. cancel() stops work between pieces and inside the backends, and no chunk is
// delivered after it.
#pragma once

#include <napi.h>

#include <memory>

#include "binding/env_context.h"

namespace svc {

struct StreamState;

class SynthStream : public Napi::ObjectWrap<SynthStream> {
 public:
  static Napi::Function Define(Napi::Env env);
  explicit SynthStream(const Napi::CallbackInfo& info);
  ~SynthStream() override;

  static std::atomic<int64_t> liveStreams;
  // Bytes of audio made and not yet read, over every stream: what readers hold back in memory.
  static std::atomic<int64_t> unreadBytes;

 private:
  Napi::Value Next(const Napi::CallbackInfo& info);
  // More planned chunks for a stream made with `open: true`; end() says no more will come.
  void Append(const Napi::CallbackInfo& info);
  void End(const Napi::CallbackInfo& info);
  void Cancel(const Napi::CallbackInfo& info);

  std::shared_ptr<StreamState> state_;
};

}  // namespace svc
