#include "binding/synth_stream.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "scheduler/chunk.h"
#include "base/errors.h"
#include "backends/espeak/backend.h"
#include "backends/flite/backend.h"
#include "binding/neural.h"
#include "scheduler/pool.h"
#include "audio/voice_transform.h"

namespace svc {

std::atomic<int64_t> SynthStream::liveStreams{0};
std::atomic<int64_t> SynthStream::unreadBytes{0};

// However little audio they hold (a run of empty chunks), no more chunks than this wait to be read.
constexpr size_t kMaxChunksAhead = 64;

// A stretch of a chunk's audio for the reader, with the words it completes.
struct AudioPiece {
  AudioStretch stretch;
  bool last = false;  // the chunk's last stretch
};

struct StreamState : std::enable_shared_from_this<StreamState> {
  std::shared_ptr<EnvContext> env;
  StreamConfig config;
  // Chunks are appended as the session plans them (a deque: a job's address never changes while
  // a pool thread synthesises it); `ended`: no more will come.
  std::deque<ChunkJob> jobs;
  bool ended = true;
  // At most `capacity` chunks are synthesised at once, and no chunk is started while the reader has
  // `aheadSamples` of audio left to read: chunks are clauses or sentences, so the bound is counted
  // in audio, not chunks, and a slow reader stops synthesis after the same stretch of speech.
  size_t capacity = 2;
  int64_t aheadSamples = 0;
  // Chunk 0 is a request's first audio: it goes ahead of the chunks other streams synthesise ahead.
  bool leading = false;
  uint64_t trackId = 0;
  std::atomic<bool> cancelled{false};
  // espeak-ng serialises its work behind one lock: it has a thread of its own, so that it never
  // holds a pool thread while it waits (flite streams would queue behind it).
  WorkerPool* pool = nullptr;

  std::mutex mutex;  // guards everything below
  size_t nextJob = 0;   // the next chunk to start
  size_t nextRead = 0;  // the chunk the reader is in
  // Chunks started and not yet read to their end, synthesised on several threads and read in order.
  std::map<size_t, std::deque<AudioPiece>> started;
  size_t producing = 0;       // chunks being synthesised
  int64_t unreadSamples = 0;  // audio made and not yet read

  ~StreamState() { CountUnreadLocked(-unreadSamples); }

  // Every piece holds `samples` in the stream's encoding: bytes follow from samples.
  void CountUnreadLocked(int64_t samples) {
    unreadSamples += samples;
    SynthStream::unreadBytes += samples * static_cast<int64_t>(BytesPerSample(config.encoding));
  }
  bool awaited = false;
  bool deliveryPosted = false;
  std::string error;
  const char* errorCode = code::kSynthesis;

  std::optional<Napi::Promise::Deferred> waiting;  // main thread only

  bool ReadyLocked() const {
    auto it = started.find(nextRead);
    return it != started.end() && !it->second.empty();
  }
  bool DoneLocked() const { return ended && nextJob == jobs.size() && started.empty(); }
  // flite's chunks have bounds of their own (CheckPieceSize).
  bool Flite() const { return config.backend == &FliteBackend::Instance(); }

  void MaybeProduceLocked() {
    while (!cancelled.load() && error.empty() && nextJob < jobs.size() && producing < capacity &&
           (started.empty() || (unreadSamples < aheadSamples && started.size() < kMaxChunksAhead))) {
      const size_t index = nextJob;
      started[index];
      if (!env->Submit([self = shared_from_this(), index] { self->Produce(index); }, *pool, index == 0 && leading)) {
        started.erase(index);
        return;
      }
      ++nextJob;
      ++producing;
    }
  }

  void NotifyLocked() {
    if (awaited && !deliveryPosted && (ReadyLocked() || !error.empty() || DoneLocked())) {
      deliveryPosted = env->Post([self = shared_from_this()](Napi::Env e) { self->Deliver(e); });
    }
  }

  // Pool thread: hand a stretch of chunk `index` on as soon as it is made.
  void Add(size_t index, AudioPiece piece) {
    std::lock_guard<std::mutex> lock(mutex);
    if (cancelled.load()) return;
    CountUnreadLocked(piece.stretch.samples);
    started[index].push_back(std::move(piece));
    NotifyLocked();
  }

  // Pool thread: synthesise chunk `index`, its audio going to the reader as it comes.
  void Produce(size_t index) {
    AudioStretch tail;
    std::string failure;
    const char* failureCode = code::kSynthesis;
    bool complete = false;
    const ChunkJob* job = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex);
      job = &jobs[index];
    }
    try {
      const AudioOut emit = [this, index](AudioStretch&& stretch) { Add(index, AudioPiece{std::move(stretch), false}); };
      complete = SynthesizeChunk(config, *job, cancelled, emit, tail, index == 0 && leading);
    } catch (const std::exception& e) {
      failure = e.what();
      failureCode = CodeOf(e);
    }
    std::lock_guard<std::mutex> lock(mutex);
    --producing;
    if (!failure.empty()) {
      error = failure;
      errorCode = failureCode;
    } else if (complete && !cancelled.load()) {
      CountUnreadLocked(tail.samples);
      started[index].push_back(AudioPiece{std::move(tail), true});
    }
    MaybeProduceLocked();
    NotifyLocked();
  }

  // Main thread: settle the pending next() if there is something to give it.
  void Deliver(Napi::Env e) {
    std::unique_lock<std::mutex> lock(mutex);
    deliveryPosted = false;
    if (!awaited || !waiting) return;
    if (!ReadyLocked() && error.empty() && !DoneLocked() && !cancelled.load()) return;
    Napi::Promise::Deferred deferred = *waiting;
    waiting.reset();
    awaited = false;
    Settle(e, deferred, lock);
    env->RemoveAwaiter(e);
  }

  // Main thread, with `lock` held on entry: resolve with the next stretch of audio, null at the
  // end, or reject.
  void Settle(Napi::Env e, Napi::Promise::Deferred& deferred, std::unique_lock<std::mutex>& lock) {
    if (!error.empty()) {
      const std::string message = error;
      const char* failureCode = errorCode;
      lock.unlock();
      deferred.Reject(JsError(e, failureCode, message).Value());
      return;
    }
    if (!ReadyLocked() || cancelled.load()) {
      lock.unlock();
      deferred.Resolve(e.Null());
      return;
    }
    // Everything of the chunk made by now goes in one answer: a reader that falls behind gets
    // fewer, longer stretches rather than a backlog of calls.
    auto it = started.find(nextRead);
    AudioPiece piece = std::move(it->second.front());
    it->second.pop_front();
    while (!piece.last && !it->second.empty()) {
      AudioPiece& more = it->second.front();
      AudioStretch& into = piece.stretch;
      into.audio.insert(into.audio.end(), more.stretch.audio.begin(), more.stretch.audio.end());
      into.samples += more.stretch.samples;
      into.words.insert(into.words.end(), more.stretch.words.begin(), more.stretch.words.end());
      into.reached = more.stretch.reached;
      piece.last = more.last;
      it->second.pop_front();
    }
    CountUnreadLocked(-piece.stretch.samples);
    if (piece.last) {
      started.erase(it);
      ++nextRead;
    }
    MaybeProduceLocked();
    lock.unlock();
    deferred.Resolve(ToJs(e, piece));
  }

  static Napi::Value ToJs(Napi::Env e, const AudioPiece& piece) {
    const AudioStretch& stretch = piece.stretch;
    Napi::Object out = Napi::Object::New(e);
    out.Set("audio", Napi::Buffer<uint8_t>::Copy(e, stretch.audio.data(), stretch.audio.size()));
    out.Set("samples", Napi::Number::New(e, static_cast<double>(stretch.samples)));
    out.Set("last", Napi::Boolean::New(e, piece.last));
    Napi::Array words = Napi::Array::New(e, stretch.words.size());
    for (size_t i = 0; i < stretch.words.size(); ++i) {
      const ChunkWord& w = stretch.words[i];
      Napi::Object word = Napi::Object::New(e);
      word.Set("piece", w.piece);
      word.Set("char", w.charStart);
      word.Set("start", Napi::Number::New(e, static_cast<double>(w.startSample)));
      word.Set("end", Napi::Number::New(e, static_cast<double>(w.endSample)));
      words.Set(static_cast<uint32_t>(i), word);
    }
    out.Set("words", words);
    Napi::Object reached = Napi::Object::New(e);
    reached.Set("piece", stretch.reached.piece);
    reached.Set("char", stretch.reached.charStart);
    out.Set("reached", reached);
    return out;
  }
};

namespace {

// What the native side accepts, whatever a VoiceStore or a caller hands it: values outside these
// make the backends spin, crash or allocate without bound.
constexpr double kMinSpeed = 0.25, kMaxSpeed = 4.0;  // espeak's rate spans 80..450 words/min around 175
constexpr double kMinRequestSpeed = 0.5, kMaxRequestSpeed = 2.0;  // the request's `speed` (lib/schemas.ts)
constexpr double kMinPitch = 0.25, kMaxPitch = 4.0;
constexpr double kMinRate = 8000, kMaxRate = 48000;
constexpr double kMaxQueueCapacity = 64;
constexpr double kMaxAheadSeconds = 600;
constexpr double kMaxBreakMs = 60000;
constexpr size_t kMaxNameBytes = 256;
// The longest run of text without a space a backend is given. espeak-ng overflows a 160-byte
// word buffer spelling out dotted letters ("a.a.a...", "中.中...."): from about 168 bytes it
// aborts the process, whatever the letters; plain runs of 400 bytes are read. flite recurses
// about 128 bytes of stack per character of one token. (issue 7, cases 1 and 3)
constexpr size_t kMaxRunBytes = 128;
// One espeak-ng phoneme word ([[...]], '|' separators not counted): 160 bytes are read; from
// about 236 phonemes espeak-ng drops the word silently, from about 350 it crashes (issue 7, case 1).
constexpr size_t kMaxEspeakPhonemeWordBytes = 160;
// One flite phoneme string (its time and audio grow with it; nothing more than a few words is asked).
constexpr size_t kMaxFlitePhonemeBytes = 1024;

[[noreturn]] void Invalid(const std::string& message) { throw NativeError(code::kInvalidArgument, message); }

std::string Describe(double d) {
  if (std::isnan(d)) return "NaN";
  std::ostringstream out;
  out << d;
  return out.str();
}

Napi::Object RequireObject(const Napi::Value& v, const std::string& what) {
  if (!v.IsObject()) Invalid(what + " must be an object");
  return v.As<Napi::Object>();
}

std::string RequireString(const Napi::Object& o, const std::string& what, const char* key,
                          size_t maxBytes = std::string::npos) {
  Napi::Value v = o.Get(key);
  if (!v.IsString()) Invalid(what + "." + key + " must be a string");
  std::string s = v.As<Napi::String>().Utf8Value();
  if (s.size() > maxBytes) Invalid(what + "." + key + " is longer than " + std::to_string(maxBytes) + " bytes");
  return s;
}

// A finite number in [min, max] (an integer if `integer`), or `fallback` when the key is absent.
double RequireNumber(const Napi::Object& o, const std::string& what, const char* key, double fallback, double min,
                     double max, bool integer = false) {
  Napi::Value v = o.Get(key);
  if (v.IsUndefined()) return fallback;
  if (!v.IsNumber()) Invalid(what + "." + key + " must be a number");
  const double d = v.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(d) || d < min || d > max || (integer && d != std::floor(d))) {
    Invalid(what + "." + key + " must be a finite " + (integer ? "integer" : "number") + " from " + Describe(min) +
            " to " + Describe(max) + ", got " + Describe(d));
  }
  return d;
}

bool IsAsciiSpace(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// The longest run of bytes between separators; `isSeparator` decides what breaks a run.
template <typename IsSeparator>
size_t LongestRun(const std::string& text, IsSeparator isSeparator, bool (*counts)(unsigned char)) {
  size_t longest = 0, run = 0;
  for (unsigned char c : text) {
    if (isSeparator(c)) run = 0;
    else if (counts(c)) longest = std::max(longest, ++run);
  }
  return longest;
}

bool AnyByte(unsigned char) { return true; }
bool NotPhoneSeparator(unsigned char c) { return c != '|'; }

// Refuses a piece the backend would crash on or drop (NativeError kInputTooLong).
void CheckPieceSize(const PieceJob& piece, bool flite, const std::string& what) {
  const std::string& text = piece.speak.text;
  if (piece.kind == PieceJob::Kind::Text) {
    // flite reads ASCII only: any other byte becomes a space.
    const size_t run = flite ? LongestRun(text, [](unsigned char c) { return IsAsciiSpace(c) || c >= 0x80; }, AnyByte)
                             : LongestRun(text, IsAsciiSpace, AnyByte);
    if (run > kMaxRunBytes) {
      throw NativeError(code::kInputTooLong, what + ".text has " + std::to_string(run) +
                                                 " bytes without a space; a backend reads at most " +
                                                 std::to_string(kMaxRunBytes));
    }
  } else if (piece.kind == PieceJob::Kind::Phonemes) {
    const size_t size = flite ? text.size() : LongestRun(text, IsAsciiSpace, NotPhoneSeparator);
    const size_t limit = flite ? kMaxFlitePhonemeBytes : kMaxEspeakPhonemeWordBytes;
    if (size > limit) {
      throw NativeError(code::kInputTooLong, what + ".phonemes " + (flite ? "has " : "has a word of ") +
                                                 std::to_string(size) + " bytes; the most is " + std::to_string(limit));
    }
  }
}

PieceJob ParsePiece(const Napi::Object& p, const std::string& what) {
  PieceJob piece;
  const std::string kind = RequireString(p, what, "kind", kMaxNameBytes);
  if (kind == "break") {
    piece.kind = PieceJob::Kind::Break;
    piece.breakMs = RequireNumber(p, what, "ms", 0, 0, kMaxBreakMs);
    return piece;
  }
  if (kind == "text") {
    piece.kind = PieceJob::Kind::Text;
    piece.speak.text = RequireString(p, what, "text");
  } else if (kind == "phonemes") {
    piece.kind = PieceJob::Kind::Phonemes;
    piece.speak.phonemes = true;
    piece.speak.text = RequireString(p, what, "phonemes");
  } else {
    Invalid(what + ".kind '" + kind + "' is not text, phonemes or break");
  }
  if (!p.Get("espeakVoice").IsUndefined()) piece.speak.voiceOverride = RequireString(p, what, "espeakVoice", kMaxNameBytes);
  return piece;
}

// A plan's chunks, validated and copied into plain structs on the main thread.
std::vector<ChunkJob> ParseChunks(const Napi::Value& chunks, const std::string& what, bool flite) {
  if (!chunks.IsArray()) Invalid(what + " must be an array");
  Napi::Array list = chunks.As<Napi::Array>();
  std::vector<ChunkJob> jobs;
  for (uint32_t i = 0; i < list.Length(); ++i) {
    const std::string chunkWhat = what + "[" + std::to_string(i) + "]";
    Napi::Object chunk = RequireObject(list.Get(i), chunkWhat);
    Napi::Value pieces = chunk.Get("pieces");
    if (!pieces.IsArray()) Invalid(chunkWhat + ".pieces must be an array");
    Napi::Array pieceList = pieces.As<Napi::Array>();
    ChunkJob job;
    for (uint32_t j = 0; j < pieceList.Length(); ++j) {
      const std::string pieceWhat = chunkWhat + ".pieces[" + std::to_string(j) + "]";
      job.pieces.push_back(ParsePiece(RequireObject(pieceList.Get(j), pieceWhat), pieceWhat));
      CheckPieceSize(job.pieces.back(), flite, pieceWhat);
    }
    job.breakBefore = chunk.Get("breakBefore").ToBoolean().Value();
    job.breakAfter = chunk.Get("breakAfter").ToBoolean().Value();
    job.continued = chunk.Get("continued").ToBoolean().Value();
    job.continues = chunk.Get("continues").ToBoolean().Value();
    jobs.push_back(std::move(job));
  }
  return jobs;
}

// Runs `body`, turning what the native side throws into coded JS errors.
template <typename Body>
void ThrowingCoded(Napi::Env env, Body body) {
  try {
    body();
  } catch (const Napi::Error&) {
    throw;  // a JS exception (a throwing getter) propagates as it is
  } catch (const NativeError& e) {
    throw JsError(env, e.Code(), e.what());
  } catch (const std::exception& e) {
    throw JsError(env, code::kInvalidArgument, e.what());
  }
}

}  // namespace

Napi::Function SynthStream::Define(Napi::Env env) {
  return DefineClass(env, "SynthStream",
                     {InstanceMethod<&SynthStream::Next>("next"), InstanceMethod<&SynthStream::Cancel>("cancel"),
                      InstanceMethod<&SynthStream::Append>("append"), InstanceMethod<&SynthStream::End>("end")});
}

// new SynthStream(plan) — the plan was validated in TypeScript; here it is checked again against
// what the backends survive (a TypeError with a code otherwise) and copied into plain structs so
// pool threads never touch JS values.
SynthStream::SynthStream(const Napi::CallbackInfo& info) : Napi::ObjectWrap<SynthStream>(info) {
  Napi::Env env = info.Env();
  auto* context = env.GetInstanceData<std::shared_ptr<EnvContext>>();
  if (info.Length() < 1 || !info[0].IsObject() || context == nullptr)
    throw JsError(env, code::kInvalidArgument, "SynthStream(plan) needs a plan object");
  Napi::Object plan = info[0].As<Napi::Object>();
  state_ = std::make_shared<StreamState>();
  state_->env = *context;
  ThrowingCoded(env, [&] {
    const std::string backend = RequireString(plan, "plan", "backend", kMaxNameBytes);
    if (backend == "espeak") state_->config.backend = &EspeakBackend::Instance();
    else if (backend == "flite") state_->config.backend = &FliteBackend::Instance();
    else if (backend == "neural") {
      const double handle = RequireNumber(plan, "plan", "model", 0, 0, 4294967295.0, true);
      state_->config.model = FindModel(static_cast<uint32_t>(handle));
      if (!state_->config.model) Invalid("plan.model is not a loaded model");
      state_->config.backend = state_->config.model.get();
      if (!plan.Get("phonemizer").IsUndefined())
        state_->config.voice.phonemizer = RequireString(plan, "plan", "phonemizer", kMaxNameBytes);
    } else Invalid("plan.backend '" + backend + "' is not espeak, flite or neural");
    state_->pool = backend == "espeak" ? &WorkerPool::Espeak() : &WorkerPool::Instance();
    state_->config.voice.voice = RequireString(plan, "plan", "voice", kMaxNameBytes);
    state_->config.voice.speed = RequireNumber(plan, "plan", "speed", 1.0, kMinSpeed, kMaxSpeed);
    state_->config.voice.requestSpeed = RequireNumber(plan, "plan", "requestSpeed", 1.0, kMinRequestSpeed, kMaxRequestSpeed);
    state_->config.voice.pitch = RequireNumber(plan, "plan", "pitch", 1.0, kMinPitch, kMaxPitch);
    // Voice-cloning hook: a cloned voice's transform (pitch and formant scale) for every piece.
    if (plan.Get("transform").IsObject()) state_->config.transform = ParseVoiceTransform(plan.Get("transform").As<Napi::Object>());
    // espeak-ng reads no slower than 80 words a minute: a slower rate stretches its audio the rest of the way.
    if (backend == "espeak") state_->config.transform.timeRatio = EspeakStretch(state_->config.voice.Rate());
    state_->config.outputRate = static_cast<int>(RequireNumber(plan, "plan", "sampleRate", 44100, kMinRate, kMaxRate, true));
    state_->config.encoding = ParseEncoding(RequireString(plan, "plan", "encoding", kMaxNameBytes));
    state_->capacity = static_cast<size_t>(RequireNumber(plan, "plan", "queueCapacity", 2, 1, kMaxQueueCapacity, true));
    state_->aheadSamples = std::llround(RequireNumber(plan, "plan", "aheadSeconds", 5, 0, kMaxAheadSeconds) *
                                        state_->config.outputRate);
    state_->leading = plan.Get("leading").ToBoolean().Value();
    state_->ended = !plan.Get("open").ToBoolean().Value();
    for (ChunkJob& job : ParseChunks(plan.Get("chunks"), "plan.chunks", state_->Flite())) state_->jobs.push_back(std::move(job));
  });
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
  if (state_->ReadyLocked() || !state_->error.empty() || state_->DoneLocked() || state_->cancelled.load()) {
    state_->Settle(env, deferred, lock);
    return deferred.Promise();
  }
  state_->awaited = true;
  state_->waiting = deferred;
  state_->env->AddAwaiter(env);
  state_->MaybeProduceLocked();
  return deferred.Promise();
}

void SynthStream::Append(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::vector<ChunkJob> jobs;
  ThrowingCoded(env, [&] { jobs = ParseChunks(info[0], "append(chunks)", state_->Flite()); });
  std::lock_guard<std::mutex> lock(state_->mutex);
  if (state_->ended) throw JsError(env, code::kInvalidArgument, "append() after end()");
  for (ChunkJob& job : jobs) state_->jobs.push_back(std::move(job));
  state_->MaybeProduceLocked();
}

void SynthStream::End(const Napi::CallbackInfo& info) {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->ended = true;
  }
  state_->Deliver(info.Env());  // a reader waiting past the last chunk gets its end now
}

void SynthStream::Cancel(const Napi::CallbackInfo& info) {
  state_->cancelled = true;
  std::unique_lock<std::mutex> lock(state_->mutex);
  state_->started.clear();
  state_->CountUnreadLocked(-state_->unreadSamples);
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
