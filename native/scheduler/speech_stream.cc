#include "scheduler/speech_stream.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace svc {

std::atomic<int64_t> SpeechStream::unreadBytes{0};

// However little audio they hold (a run of empty chunks), no more chunks than this wait to be read.
constexpr size_t kMaxChunksAhead = 64;
// Stretches that come closer together than this are made faster than any reader needs them one by
// one; a slower backend (a neural pack) hands on every stretch as it comes.
constexpr auto kQuickStretch = std::chrono::milliseconds(2);
constexpr double kJoinSeconds = 1.0;

SpeechStream::SpeechStream(StreamPlan plan, Submit submit, Wake wake, Held held)
    : config_(std::move(plan.config)),
      pool_(*plan.pool),
      capacity_(plan.capacity),
      aheadSamples_(std::llround(plan.aheadSeconds * config_.outputRate)),
      leading_(plan.leading),
      wholeChunks_(plan.wholeChunks),
      submit_(std::move(submit)),
      wake_(std::move(wake)),
      held_(std::move(held)),
      jobs_(std::make_move_iterator(plan.chunks.begin()), std::make_move_iterator(plan.chunks.end())),
      ended_(!plan.open),
      joinSamples_(std::llround(kJoinSeconds * config_.outputRate)) {}

SpeechStream::~SpeechStream() { CountUnreadLocked(-unreadSamples_); }

void SpeechStream::Start() {
  std::lock_guard<std::mutex> lock(mutex_);
  MaybeProduceLocked();
}

// The chunk being read has a stretch for the reader. Its first stretch goes at once (the reader may
// be waiting for audio), and so does its last; one made soon after the one before waits for the
// next while they add up to less than kJoinSeconds. A reader of whole chunks waits for the last,
// or for as much audio as the stream may hold unread.
bool SpeechStream::ReadyLocked() const {
  auto it = started_.find(nextRead_);
  if (it == started_.end() || it->second.pieces.empty()) return false;
  const StartedChunk& chunk = it->second;
  if (chunk.pieces.back().last) return true;
  if (wholeChunks_) return chunk.samples >= std::max(aheadSamples_, joinSamples_);
  return !chunk.read || !chunk.quick || chunk.samples >= joinSamples_;
}

bool SpeechStream::DoneLocked() const { return ended_ && nextJob_ == jobs_.size() && started_.empty(); }

bool SpeechStream::DueLocked() const { return ReadyLocked() || !error_.empty() || DoneLocked() || cancelled_.load(); }

// Every piece holds `samples` in the stream's encoding: bytes follow from samples.
void SpeechStream::CountUnreadLocked(int64_t samples) {
  if (samples == 0) return;
  const int64_t bytes = samples * static_cast<int64_t>(BytesPerSample(config_.encoding));
  unreadSamples_ += samples;
  unreadBytes += bytes;
  if (held_) held_(bytes);
  if (bytes < 0) WorkerPool::Freed(-bytes);
}

void SpeechStream::MaybeProduceLocked() {
  while (!cancelled_.load() && error_.empty() && nextJob_ < jobs_.size() && producing_ < capacity_ &&
         (started_.empty() || (unreadSamples_ < aheadSamples_ && started_.size() < kMaxChunksAhead))) {
    const size_t index = nextJob_;
    started_[index];
    if (!submit_([self = shared_from_this(), index] { self->Produce(index); }, pool_, index == 0 && leading_, this)) {
      started_.erase(index);
      return;
    }
    ++nextJob_;
    ++producing_;
  }
}

// Whether the waiting reader is to be woken now; it is then counted as woken.
bool SpeechStream::WakeDueLocked() {
  if (!awaited_ || woken_ || !(ReadyLocked() || !error_.empty() || DoneLocked())) return false;
  woken_ = true;
  return true;
}

// Called after the lock is let go: posting to the reader takes the poster's own lock and a system
// call, and the reader and the other pool threads would wait behind them for this stream's lock.
void SpeechStream::WakeReader() {
  if (wake_(shared_from_this())) return;
  std::lock_guard<std::mutex> lock(mutex_);
  woken_ = false;
}

// Pool thread: hand a stretch of chunk `index` on as it is made.
void SpeechStream::Add(size_t index, AudioPiece piece) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (cancelled_.load()) return;
  CountUnreadLocked(piece.stretch.samples);
  StartedChunk& chunk = started_[index];
  const auto now = std::chrono::steady_clock::now();
  chunk.quick = chunk.lastMade != std::chrono::steady_clock::time_point{} && now - chunk.lastMade < kQuickStretch;
  chunk.lastMade = now;
  chunk.samples += piece.stretch.samples;
  chunk.pieces.push_back(std::move(piece));
  const bool wake = WakeDueLocked();
  lock.unlock();
  if (wake) WakeReader();
}

// Pool thread: synthesise chunk `index`, its audio going to the reader as it comes.
void SpeechStream::Produce(size_t index) {
  AudioStretch tail;
  std::string failure;
  const char* failureCode = code::kSynthesis;
  bool complete = false;
  const ChunkJob* job = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job = &jobs_[index];
  }
  try {
    const AudioOut emit = [this, index](AudioStretch&& stretch) { Add(index, AudioPiece{std::move(stretch), false}); };
    complete = SynthesizeChunk(config_, *job, cancelled_, emit, tail, index == 0 && leading_);
  } catch (const std::exception& e) {
    failure = e.what();
    failureCode = CodeOf(e);
  }
  std::unique_lock<std::mutex> lock(mutex_);
  --producing_;
  if (!failure.empty()) {
    error_ = failure;
    errorCode_ = failureCode;
  } else if (complete && !cancelled_.load()) {
    CountUnreadLocked(tail.samples);
    StartedChunk& chunk = started_[index];
    chunk.samples += tail.samples;
    chunk.pieces.push_back(AudioPiece{std::move(tail), true});
  }
  MaybeProduceLocked();
  const bool wake = WakeDueLocked();
  lock.unlock();
  if (wake) WakeReader();
}

std::optional<StreamRead> SpeechStream::Read() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (DueLocked()) return TakeLocked();
  awaited_ = true;
  MaybeProduceLocked();
  return std::nullopt;
}

std::optional<StreamRead> SpeechStream::Resume() {
  std::lock_guard<std::mutex> lock(mutex_);
  woken_ = false;
  if (!awaited_ || !DueLocked()) return std::nullopt;
  awaited_ = false;
  return TakeLocked();
}

// The next stretch of audio, the end, or the failure.
StreamRead SpeechStream::TakeLocked() {
  StreamRead read;
  if (!error_.empty()) {
    read.kind = StreamRead::Kind::Failure;
    read.code = errorCode_;
    read.message = error_;
    return read;
  }
  if (!ReadyLocked() || cancelled_.load()) return read;
  // Everything of the chunk made by now goes in one read: a reader that falls behind gets fewer,
  // longer stretches rather than a backlog of calls.
  auto it = started_.find(nextRead_);
  std::deque<AudioPiece>& pieces = it->second.pieces;
  int64_t samples = 0;
  bool last = false;
  read.pieces.reserve(pieces.size());
  while (!last && !pieces.empty()) {
    samples += pieces.front().stretch.samples;
    last = pieces.front().last;
    read.pieces.push_back(std::move(pieces.front()));
    pieces.pop_front();
  }
  CountUnreadLocked(-samples);
  it->second.samples = 0;
  it->second.read = true;
  if (last) {
    started_.erase(it);
    ++nextRead_;
  }
  MaybeProduceLocked();
  read.kind = StreamRead::Kind::Audio;
  return read;
}

void SpeechStream::Append(std::vector<ChunkJob> chunks) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (ended_) throw NativeError(code::kInvalidArgument, "append() after end()");
  for (ChunkJob& job : chunks) jobs_.push_back(std::move(job));
  MaybeProduceLocked();
}

void SpeechStream::End() {
  std::lock_guard<std::mutex> lock(mutex_);
  ended_ = true;
}

bool SpeechStream::Cancel() {
  cancelled_ = true;
  std::lock_guard<std::mutex> lock(mutex_);
  started_.clear();
  CountUnreadLocked(-unreadSamples_);
  const bool waiting = awaited_;
  awaited_ = false;
  return waiting;
}

}  // namespace svc
