// A planned stream of speech: pool threads synthesize its chunks, at most `capacity` at once and
// until `aheadSeconds` of audio wait unread, and one reader takes their audio in order. A session
// appends chunks as it plans them, on one stream (one place in the pool's schedule). A reader that
// falls behind parks synthesis (no task is scheduled). Cancel() stops work between pieces and
// inside the backends, and no chunk is delivered after it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/errors.h"
#include "scheduler/chunk.h"
#include "scheduler/pool.h"

namespace svc {

struct StreamPlan {
  StreamConfig config;
  WorkerPool* pool = nullptr;  // where its chunks run: espeak-ng's own thread, or the pool
  size_t capacity = 2;         // chunks synthesised at once
  double aheadSeconds = 5;     // unread audio at which no more chunks start
  // Chunk 0 is a request's first audio: it goes ahead of the chunks other streams synthesise ahead.
  bool leading = false;
  bool open = false;  // more chunks will be appended (Append, then End)
  // The reader joins all the audio into one (a one-shot request): a chunk goes in one read once it
  // is made, or in stretches of aheadSeconds, not stretch by stretch for its first audio.
  bool wholeChunks = false;
  std::vector<ChunkJob> chunks;
};

// A stretch of a chunk's audio for the reader, with the words it completes.
struct AudioPiece {
  AudioStretch stretch;
  bool last = false;  // the chunk's last stretch
};

// What the reader gets: the next stretch, the end of the stream, or the failure that ended it.
struct StreamRead {
  enum class Kind { Audio, End, Failure } kind = Kind::End;
  // Audio: the stretches of one chunk, in order, that make the next stretch read; only the last
  // may be the chunk's last. The reader joins them as it copies them out (one copy, not two).
  std::vector<AudioPiece> pieces;
  const char* code = code::kSynthesis;  // Failure
  std::string message;                  // Failure
};

class SpeechStream : public std::enable_shared_from_this<SpeechStream> {
 public:
  // Any thread: runs `task` on `pool` for this stream (`first`: ahead of other tasks; `tag`: the
  // stream, whose queued tasks its owner may drop on cancel). False when it never will run (its
  // owner is closing).
  using Submit = std::function<bool(std::function<void()> task, WorkerPool& pool, bool first, const void* tag)>;
  // A pool thread, without the stream's lock: the waiting reader has something to take; it is to
  // call Resume() soon, from its own thread. False when it never will.
  using Wake = std::function<bool(std::shared_ptr<SpeechStream> stream)>;
  // Any thread, with the stream's lock held: the audio the stream holds unread grew by `bytes`
  // (shrank, when negative). Over the stream's life the calls add up to zero.
  using Held = std::function<void(int64_t bytes)>;

  SpeechStream(StreamPlan plan, Submit submit, Wake wake, Held held = nullptr);
  ~SpeechStream();
  SpeechStream(const SpeechStream&) = delete;
  SpeechStream& operator=(const SpeechStream&) = delete;

  // Starts synthesis, before the first read.
  void Start();

  // The reader's calls come from one thread, one read at a time.
  // What is due now; else nothing, and the reader waits to be woken.
  std::optional<StreamRead> Read();
  // A waiting reader's read, once something is due (after Wake, or End).
  std::optional<StreamRead> Resume();
  // More chunks for an open stream; throws NativeError (invalid argument) after End.
  void Append(std::vector<ChunkJob> chunks);
  // No more chunks will come: the reader gets its end after the last one.
  void End();
  // Stops the work and drops the audio not yet read. True when the reader was waiting: its read
  // is the end.
  bool Cancel();
  // Any thread: stops the work (an environment closing).
  void Stop() { cancelled_ = true; }
  // Where its chunks run (for dropping the ones still queued there).
  WorkerPool& Pool() const { return pool_; }

  // Bytes of audio made and not yet read, over every stream: what readers hold back in memory.
  static std::atomic<int64_t> unreadBytes;

 private:
  // A chunk started: its stretches not yet read, and when the last of them was made.
  struct StartedChunk {
    std::deque<AudioPiece> pieces;
    int64_t samples = 0;  // in `pieces`
    std::chrono::steady_clock::time_point lastMade;
    bool quick = false;  // its last stretch came soon after the one before
    bool read = false;   // the reader has had a stretch of it
  };

  bool ReadyLocked() const;
  bool DoneLocked() const;
  bool DueLocked() const;
  void CountUnreadLocked(int64_t samples);
  void MaybeProduceLocked();
  bool WakeDueLocked();
  void WakeReader();
  StreamRead TakeLocked();
  void Add(size_t index, AudioPiece piece);
  void Produce(size_t index);

  const StreamConfig config_;
  WorkerPool& pool_;
  const size_t capacity_;
  // No chunk is started while the reader has this much audio left to read: chunks are clauses or
  // sentences, so the bound is counted in audio, not chunks, and a slow reader stops synthesis
  // after the same stretch of speech.
  const int64_t aheadSamples_;
  const bool leading_;
  const bool wholeChunks_;
  const Submit submit_;
  const Wake wake_;
  const Held held_;
  std::atomic<bool> cancelled_{false};

  std::mutex mutex_;  // guards everything below
  // A deque: a chunk's address never changes while a pool thread synthesises it.
  std::deque<ChunkJob> jobs_;
  bool ended_;
  size_t nextJob_ = 0;   // the next chunk to start
  size_t nextRead_ = 0;  // the chunk the reader is in
  // Chunks started and not yet read to their end, synthesised on several threads and read in order.
  std::map<size_t, StartedChunk> started_;
  // A chunk's stretches made in quick succession wait for each other up to this much audio: each
  // stretch handed on separately costs the reader's thread a wake, a copy and a turn of its loop.
  const int64_t joinSamples_;
  size_t producing_ = 0;       // chunks being synthesised
  int64_t unreadSamples_ = 0;  // audio made and not yet read
  bool awaited_ = false;       // the reader waits
  bool woken_ = false;         // and has been woken
  std::string error_;
  const char* errorCode_ = code::kSynthesis;
};

}  // namespace svc
