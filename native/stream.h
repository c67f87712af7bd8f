// SynthStream: a pull-based native audio stream. JS calls next(); pool threads synthesize the
// planned chunks in order, at most `queueCapacity` ahead of the consumer. A full queue parks
// synthesis (no task is scheduled), never the event loop. cancel() stops work between pieces
// and inside the backends, and no chunk is delivered after it.
#pragma once

#include <napi.h>

#include <memory>

#include "env_context.h"

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
  void Cancel(const Napi::CallbackInfo& info);

  std::shared_ptr<StreamState> state_;
};

}  // namespace svc
