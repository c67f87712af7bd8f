// SynthStream: the JS face of a planned stream of speech (scheduler/speech_stream.h). JS pulls
// with next(), one call at a time; each resolves with the next stretch of audio and its words, or
// null at the end. The event loop never waits: a read that finds nothing settles when the pool
// has made it.
#pragma once

#include <napi.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

#include "binding/env_context.h"
#include "scheduler/speech_stream.h"

namespace svc {

class SynthStream : public Napi::ObjectWrap<SynthStream> {
 public:
  static Napi::Function Define(Napi::Env env);
  explicit SynthStream(const Napi::CallbackInfo& info);
  ~SynthStream() override;

  static std::atomic<int64_t> liveStreams;

 private:
  // The promise of the pending next(), when it waits for the pool: main thread only.
  using PendingRead = std::optional<Napi::Promise::Deferred>;

  Napi::Value Next(const Napi::CallbackInfo& info);
  // More planned chunks for a stream made with `open: true`; end() says no more will come.
  void Append(const Napi::CallbackInfo& info);
  void End(const Napi::CallbackInfo& info);
  void Cancel(const Napi::CallbackInfo& info);

  // Main thread: settles the pending next() if the stream has something for it now.
  static void Resume(Napi::Env env, SpeechStream& stream, EnvContext& context, PendingRead& pending);
  static void Settle(Napi::Env env, Napi::Promise::Deferred& deferred, StreamRead& read);

  std::shared_ptr<EnvContext> context_;
  // Shared with the deliveries the stream posts, which may outlive this object.
  std::shared_ptr<PendingRead> pending_;
  std::shared_ptr<SpeechStream> stream_;
  bool flite_ = false;  // its appended chunks have flite's input limits
  uint64_t trackId_ = 0;
};

}  // namespace svc
