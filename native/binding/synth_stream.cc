#include "binding/synth_stream.h"

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "binding/addon_data.h"
#include "binding/js_arg.h"
#include "binding/js_error.h"
#include "binding/plan.h"

namespace svc {
namespace {

// [audio, numbers]: the audio of the read's stretches joined, and the numbers [samples, last,
// reached piece, reached char, then piece, char, start, end of each word], unpacked in
// lib/native.ts. Objects with named properties made from here cost more than the audio's copy
// (each property a call into V8's runtime).
Napi::Value ToJs(Napi::Env env, const std::vector<AudioPiece>& pieces) {
  size_t bytes = 0;
  size_t words = 0;
  int64_t samples = 0;
  for (const AudioPiece& piece : pieces) {
    bytes += piece.stretch.audio.size();
    words += piece.stretch.words.size();
    samples += piece.stretch.samples;
  }
  Napi::Buffer<uint8_t> audio = Napi::Buffer<uint8_t>::New(env, bytes);
  Napi::Float64Array numbers = Napi::Float64Array::New(env, 4 + 4 * words);
  uint8_t* into = audio.Data();
  double* out = numbers.Data();
  const AudioPiece& end = pieces.back();
  out[0] = static_cast<double>(samples);
  out[1] = end.last ? 1 : 0;
  out[2] = end.stretch.reached.piece;
  out[3] = end.stretch.reached.charStart;
  for (const AudioPiece& piece : pieces) {
    const std::vector<uint8_t>& bytesOf = piece.stretch.audio;
    if (!bytesOf.empty()) std::memcpy(into, bytesOf.data(), bytesOf.size());
    into += bytesOf.size();
    for (const ChunkWord& w : piece.stretch.words) {
      out += 4;
      out[0] = w.piece;
      out[1] = w.charStart;
      out[2] = static_cast<double>(w.startSample);
      out[3] = static_cast<double>(w.endSample);
    }
  }
  Napi::Array packed = Napi::Array::New(env, 2);
  packed.Set(0u, audio);
  packed.Set(1u, numbers);
  return packed;
}

}  // namespace

std::atomic<int64_t> SynthStream::liveStreams{0};

Napi::Function SynthStream::Define(Napi::Env env) {
  return DefineClass(env, "SynthStream",
                     {InstanceMethod<&SynthStream::Next>("next"), InstanceMethod<&SynthStream::Cancel>("cancel"),
                      InstanceMethod<&SynthStream::Append>("append"), InstanceMethod<&SynthStream::End>("end")});
}

// new SynthStream(plan): synthesis starts before the first next().
SynthStream::SynthStream(const Napi::CallbackInfo& info)
    : Napi::ObjectWrap<SynthStream>(info),
      context_(AddonData::Of(info.Env()).context),
      pending_(std::make_shared<PendingRead>()) {
  StreamPlan plan;
  ThrowingCoded(info.Env(), [&] { plan = ReadPlan(JsArg(info, "SynthStream", 0, "plan")); });
  flite_ = SpokenByFlite(plan);
  auto submit = [context = context_](std::function<void()> task, WorkerPool& pool, bool first, const void* tag) {
    return context->Submit(std::move(task), pool, first, tag);
  };
  // The delivery holds the stream and the pending read: it settles the read even if this object
  // is collected meanwhile.
  auto wake = [context = context_, pending = pending_](std::shared_ptr<SpeechStream> stream) {
    return context->Post([context, pending, stream](Napi::Env env) { Resume(env, *stream, *context, *pending); });
  };
  auto held = [context = context_](int64_t bytes) { context->AdjustExternal(bytes); };
  stream_ = std::make_shared<SpeechStream>(std::move(plan), std::move(submit), std::move(wake), std::move(held));
  std::weak_ptr<SpeechStream> weak = stream_;
  trackId_ = context_->Track([weak] {
    if (auto stream = weak.lock()) stream->Stop();
  });
  liveStreams.fetch_add(1);
  stream_->Start();
}

// A stream dropped unfinished is cancelled at once: its audio freed, its queued chunks dropped.
SynthStream::~SynthStream() {
  stream_->Cancel();
  context_->Withdraw(stream_->Pool(), stream_.get());
  context_->ReportExternal(Env());
  context_->Untrack(trackId_);
  liveStreams.fetch_sub(1);
}

void SynthStream::Settle(Napi::Env env, Napi::Promise::Deferred& deferred, StreamRead& read) {
  switch (read.kind) {
    case StreamRead::Kind::Failure: deferred.Reject(JsError(env, read.code, read.message).Value()); break;
    case StreamRead::Kind::End: deferred.Resolve(env.Null()); break;
    case StreamRead::Kind::Audio: deferred.Resolve(ToJs(env, read.pieces)); break;
  }
}

void SynthStream::Resume(Napi::Env env, SpeechStream& stream, EnvContext& context, PendingRead& pending) {
  std::optional<StreamRead> read = stream.Resume();
  context.ReportExternal(env);
  if (!read) return;
  Napi::Promise::Deferred deferred = *pending;
  pending.reset();
  Settle(env, deferred, *read);
  context.RemoveAwaiter(env);
}

Napi::Value SynthStream::Next(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto deferred = Napi::Promise::Deferred::New(env);
  if (pending_->has_value()) {
    deferred.Reject(Napi::Error::New(env, "next() called while another next() is pending").Value());
    return deferred.Promise();
  }
  std::optional<StreamRead> read = stream_->Read();
  context_->ReportExternal(env);
  if (read) {
    Settle(env, deferred, *read);
    return deferred.Promise();
  }
  *pending_ = deferred;
  context_->AddAwaiter(env);
  return deferred.Promise();
}

void SynthStream::Append(const Napi::CallbackInfo& info) {
  ThrowingCoded(info.Env(), [&] { stream_->Append(ReadChunks(JsArg(info, "SynthStream.append", 0, "chunks"), flite_)); });
}

void SynthStream::End(const Napi::CallbackInfo& info) {
  stream_->End();
  Resume(info.Env(), *stream_, *context_, *pending_);  // a reader waiting past the last chunk gets its end now
}

void SynthStream::Cancel(const Napi::CallbackInfo& info) {
  const bool waiting = stream_->Cancel();
  context_->Withdraw(stream_->Pool(), stream_.get());
  context_->ReportExternal(info.Env());
  if (!waiting || !pending_->has_value()) return;
  Napi::Promise::Deferred deferred = **pending_;
  pending_->reset();
  deferred.Resolve(info.Env().Null());
  context_->RemoveAwaiter(info.Env());
}

}  // namespace svc
