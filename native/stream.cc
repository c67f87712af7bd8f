#include "stream.h"

#include <deque>
#include <optional>
#include <stdexcept>

#include "chunk.h"
#include "espeak_backend.h"
#include "flite_backend.h"
#include "onnx_binding.h"
#include "pool.h"

namespace svc {

std::atomic<int64_t> SynthStream::liveStreams{0};

struct StreamState : std::enable_shared_from_this<StreamState> {
  std::shared_ptr<EnvContext> env;
  StreamConfig config;
  std::vector<ChunkJob> jobs;
  size_t capacity = 2;
  uint64_t trackId = 0;
  std::atomic<bool> cancelled{false};

  std::mutex mutex;  // guards everything below
  size_t nextJob = 0;
  bool producing = false;
  bool awaited = false;
  bool deliveryPosted = false;
  std::deque<ChunkResult> ready;
  std::string error;

  std::optional<Napi::Promise::Deferred> waiting;  // main thread only

  bool DoneLocked() const { return nextJob == jobs.size() && !producing && ready.empty(); }

  void MaybeProduceLocked() {
    if (producing || cancelled.load() || !error.empty() || nextJob >= jobs.size() || ready.size() >= capacity) return;
    producing = true;
    env->TaskStarted();
    WorkerPool::Instance().Submit([self = shared_from_this()] { self->ProduceOne(); });
  }

  // Pool thread: synthesize the next chunk, then hand it to a waiting next() if there is one.
  void ProduceOne() {
    size_t index;
    {
      std::lock_guard<std::mutex> lock(mutex);
      index = nextJob++;
    }
    ChunkResult result;
    std::string failure;
    bool complete = false;
    try {
      complete = SynthesizeChunk(config, jobs[index], cancelled, result);
    } catch (const std::exception& e) {
      failure = e.what();
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      producing = false;
      if (!failure.empty()) error = failure;
      else if (complete && !cancelled.load()) ready.push_back(std::move(result));
      if (awaited && !deliveryPosted) {
        deliveryPosted = env->Post([self = shared_from_this()](Napi::Env e) { self->Deliver(e); });
      }
      MaybeProduceLocked();
    }
    env->TaskFinished();  // last: teardown may free nothing we still touch, but waits for this
  }

  // Main thread: settle the pending next() if there is something to give it.
  void Deliver(Napi::Env e) {
    std::unique_lock<std::mutex> lock(mutex);
    deliveryPosted = false;
    if (!awaited || !waiting) return;
    if (ready.empty() && error.empty() && !DoneLocked() && !cancelled.load()) return;
    Napi::Promise::Deferred deferred = *waiting;
    waiting.reset();
    awaited = false;
    Settle(e, deferred, lock);
    env->RemoveAwaiter(e);
  }

  // Main thread, with `lock` held on entry: resolve with the next chunk, null at the end, or reject.
  void Settle(Napi::Env e, Napi::Promise::Deferred& deferred, std::unique_lock<std::mutex>& lock) {
    if (!error.empty() && ready.empty()) {
      const std::string message = error;
      lock.unlock();
      deferred.Reject(Napi::Error::New(e, message).Value());
      return;
    }
    if (ready.empty() || cancelled.load()) {
      lock.unlock();
      deferred.Resolve(e.Null());
      return;
    }
    ChunkResult chunk = std::move(ready.front());
    ready.pop_front();
    MaybeProduceLocked();
    lock.unlock();
    deferred.Resolve(ToJs(e, chunk));
  }

  static Napi::Value ToJs(Napi::Env e, const ChunkResult& chunk) {
    Napi::Object out = Napi::Object::New(e);
    out.Set("audio", Napi::Buffer<uint8_t>::Copy(e, chunk.audio.data(), chunk.audio.size()));
    out.Set("samples", Napi::Number::New(e, static_cast<double>(chunk.samples)));
    Napi::Array words = Napi::Array::New(e, chunk.words.size());
    for (size_t i = 0; i < chunk.words.size(); ++i) {
      const ChunkWord& w = chunk.words[i];
      Napi::Object word = Napi::Object::New(e);
      word.Set("piece", w.piece);
      word.Set("char", w.charStart);
      word.Set("start", Napi::Number::New(e, static_cast<double>(w.startSample)));
      word.Set("end", Napi::Number::New(e, static_cast<double>(w.endSample)));
      words.Set(static_cast<uint32_t>(i), word);
    }
    out.Set("words", words);
    Napi::Array starts = Napi::Array::New(e, chunk.pieceStarts.size());
    for (size_t i = 0; i < chunk.pieceStarts.size(); ++i)
      starts.Set(static_cast<uint32_t>(i), Napi::Number::New(e, static_cast<double>(chunk.pieceStarts[i])));
    out.Set("pieceStarts", starts);
    return out;
  }
};

namespace {

std::string RequireString(const Napi::Object& o, const char* key) {
  Napi::Value v = o.Get(key);
  if (!v.IsString()) throw std::invalid_argument(std::string("plan.") + key + " must be a string");
  return v.As<Napi::String>().Utf8Value();
}

double NumberOr(const Napi::Object& o, const char* key, double fallback) {
  Napi::Value v = o.Get(key);
  return v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : fallback;
}

PieceJob ParsePiece(const Napi::Object& p) {
  PieceJob piece;
  const std::string kind = RequireString(p, "kind");
  if (kind == "break") {
    piece.kind = PieceJob::Kind::Break;
    piece.breakMs = NumberOr(p, "ms", 0);
    if (!(piece.breakMs >= 0)) throw std::invalid_argument("break ms must be >= 0");
    return piece;
  }
  if (kind == "text") {
    piece.kind = PieceJob::Kind::Text;
    piece.speak.text = RequireString(p, "text");
  } else if (kind == "phonemes") {
    piece.kind = PieceJob::Kind::Phonemes;
    piece.speak.phonemes = true;
    piece.speak.text = RequireString(p, "phonemes");
  } else {
    throw std::invalid_argument("unknown piece kind '" + kind + "'");
  }
  if (p.Get("espeakVoice").IsString()) piece.speak.voiceOverride = RequireString(p, "espeakVoice");
  return piece;
}

}  // namespace

Napi::Function SynthStream::Define(Napi::Env env) {
  return DefineClass(env, "SynthStream",
                     {InstanceMethod<&SynthStream::Next>("next"), InstanceMethod<&SynthStream::Cancel>("cancel")});
}

// new SynthStream(plan, envContext) — the plan was validated in TypeScript; here it is only
// copied into plain structs so pool threads never touch JS values.
SynthStream::SynthStream(const Napi::CallbackInfo& info) : Napi::ObjectWrap<SynthStream>(info) {
  Napi::Env env = info.Env();
  auto* context = env.GetInstanceData<std::shared_ptr<EnvContext>>();
  if (info.Length() < 1 || !info[0].IsObject() || context == nullptr)
    throw Napi::TypeError::New(env, "SynthStream(plan) needs a plan object");
  Napi::Object plan = info[0].As<Napi::Object>();
  state_ = std::make_shared<StreamState>();
  state_->env = *context;
  try {
    const std::string backend = RequireString(plan, "backend");
    if (backend == "espeak") state_->config.backend = &EspeakBackend::Instance();
    else if (backend == "flite") state_->config.backend = &FliteBackend::Instance();
    else if (backend == "neural") {
      state_->config.model = FindModel(static_cast<uint32_t>(NumberOr(plan, "model", 0)));
      if (!state_->config.model) throw std::invalid_argument("plan.model is not a loaded model");
      state_->config.backend = state_->config.model.get();
      if (plan.Get("phonemizer").IsString()) state_->config.voice.phonemizer = RequireString(plan, "phonemizer");
    } else throw std::invalid_argument("unknown backend '" + backend + "'");
    state_->config.voice.voice = RequireString(plan, "voice");
    state_->config.voice.speed = NumberOr(plan, "speed", 1.0);
    state_->config.voice.pitch = NumberOr(plan, "pitch", 1.0);
    state_->config.outputRate = static_cast<int>(NumberOr(plan, "sampleRate", 44100));
    state_->config.encoding = ParseEncoding(RequireString(plan, "encoding"));
    state_->capacity = static_cast<size_t>(std::max(1.0, NumberOr(plan, "queueCapacity", 2)));
    Napi::Value chunks = plan.Get("chunks");
    if (!chunks.IsArray()) throw std::invalid_argument("plan.chunks must be an array");
    Napi::Array list = chunks.As<Napi::Array>();
    for (uint32_t i = 0; i < list.Length(); ++i) {
      Napi::Object chunk = list.Get(i).As<Napi::Object>();
      Napi::Array pieces = chunk.Get("pieces").As<Napi::Array>();
      ChunkJob job;
      for (uint32_t j = 0; j < pieces.Length(); ++j) job.pieces.push_back(ParsePiece(pieces.Get(j).As<Napi::Object>()));
      job.continues = chunk.Get("continues").ToBoolean().Value();
      state_->jobs.push_back(std::move(job));
    }
    auto& jobs = state_->jobs;
    for (size_t i = 0; i + 1 < jobs.size(); ++i) {
      const auto& next = jobs[i + 1].pieces;
      const auto& current = jobs[i].pieces;
      jobs[i].breakAfter = !next.empty() && next.front().kind == PieceJob::Kind::Break;
      jobs[i + 1].breakBefore = !current.empty() && current.back().kind == PieceJob::Kind::Break;
      jobs[i + 1].continued = jobs[i].continues;
    }
  } catch (const std::exception& e) {
    throw Napi::TypeError::New(env, e.what());
  }
  std::weak_ptr<StreamState> weak = state_;
  state_->trackId = state_->env->Track([weak] {
    if (auto s = weak.lock()) s->cancelled = true;
  });
  liveStreams.fetch_add(1);
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->MaybeProduceLocked();  // start synthesizing before the first next()
}

SynthStream::~SynthStream() {
  state_->cancelled = true;  // an abandoned stream stops its work
  state_->env->Untrack(state_->trackId);
  liveStreams.fetch_sub(1);
}

Napi::Value SynthStream::Next(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto deferred = Napi::Promise::Deferred::New(env);
  std::unique_lock<std::mutex> lock(state_->mutex);
  if (state_->awaited) {
    lock.unlock();
    deferred.Reject(Napi::Error::New(env, "next() called while another next() is pending").Value());
    return deferred.Promise();
  }
  if (!state_->ready.empty() || !state_->error.empty() || state_->DoneLocked() || state_->cancelled.load()) {
    state_->Settle(env, deferred, lock);
    return deferred.Promise();
  }
  state_->awaited = true;
  state_->waiting = deferred;
  state_->env->AddAwaiter(env);
  state_->MaybeProduceLocked();
  return deferred.Promise();
}

void SynthStream::Cancel(const Napi::CallbackInfo& info) {
  state_->cancelled = true;
  std::unique_lock<std::mutex> lock(state_->mutex);
  state_->ready.clear();
  if (state_->awaited && state_->waiting) {
    Napi::Promise::Deferred deferred = *state_->waiting;
    state_->waiting.reset();
    state_->awaited = false;
    lock.unlock();
    deferred.Resolve(info.Env().Null());
    state_->env->RemoveAwaiter(info.Env());
  }
}

}  // namespace svc
