#include "scheduler/chunk.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <optional>

#include "audio/resampler.h"
#include "base/random.h"

namespace svc {
namespace {

// Below half an s16 step: encodes as digital zero.
constexpr float kDigitalSilence = 0.5f / 32768.0f;
// About -54 dBFS: the backends' edge silence and noise floor around an utterance.
constexpr float kQuiet = 0.002f;
// Speech cut mid-clause keeps this much of its edge silence, so words do not collide.
constexpr double kJoinMarginSeconds = 0.015;
// Audio goes to the reader as soon as a chunk has some, then in pieces of about this length.
constexpr double kPieceSeconds = 0.2;

// Is the neighbour at `index` (which may lie in the previous or next chunk) a break?
bool IsBreak(const ChunkJob& job, size_t index) {
  if (index == static_cast<size_t>(-1)) return job.breakBefore;
  if (index == job.pieces.size()) return job.breakAfter;
  return job.pieces[index].kind == PieceJob::Kind::Break;
}

// Trims a piece's edge silence as its samples stream through: leading samples below a threshold
// are dropped but for the last `keep`, and a trailing run below one is held back until louder
// audio follows, or cut to its first `keep` samples at the end. A threshold of 0 trims nothing.
class EdgeTrimmer {
 public:
  EdgeTrimmer(float leadThreshold, size_t leadKeep, float trailThreshold, size_t trailKeep)
      : leadThreshold_(leadThreshold), leadKeep_(leadKeep), trailThreshold_(trailThreshold), trailKeep_(trailKeep),
        leading_(leadThreshold > 0) {}

  void Push(const float* samples, size_t count, std::vector<float>& out) {
    if (!leading_ && trailThreshold_ <= 0) {  // nothing to trim (most pieces): no per-sample work
      out.insert(out.end(), samples, samples + count);
      return;
    }
    for (size_t i = 0; i < count; ++i) {
      const float x = samples[i];
      if (leading_) {
        if (std::fabs(x) < leadThreshold_) {
          lead_.push_back(x);
          if (lead_.size() > leadKeep_) {
            lead_.pop_front();
            ++dropped_;
          }
          continue;
        }
        leading_ = false;
        for (float held : lead_) Trail(held, out);
        lead_.clear();
      }
      Trail(x, out);
    }
  }

  void Finish(std::vector<float>& out) {
    for (float held : lead_) Trail(held, out);
    lead_.clear();
    const size_t keep = std::min(trail_.size(), trailThreshold_ > 0 ? trailKeep_ : trail_.size());
    out.insert(out.end(), trail_.begin(), trail_.begin() + static_cast<std::ptrdiff_t>(keep));
    trail_.clear();
  }

  // Samples dropped from the start; final once the leading edge is passed.
  size_t Dropped() const { return dropped_; }
  bool Leading() const { return leading_; }

 private:
  void Trail(float x, std::vector<float>& out) {
    if (trailThreshold_ > 0 && std::fabs(x) < trailThreshold_) {
      trail_.push_back(x);
      return;
    }
    out.insert(out.end(), trail_.begin(), trail_.end());
    trail_.clear();
    out.push_back(x);
  }

  const float leadThreshold_;
  const size_t leadKeep_;
  const float trailThreshold_;
  const size_t trailKeep_;
  bool leading_;
  size_t dropped_ = 0;
  std::deque<float> lead_;
  std::vector<float> trail_;
};

// Collects a chunk's output samples and sends them on, encoded, in pieces, with the words that
// are ready.
class ChunkWriter {
 public:
  ChunkWriter(const StreamConfig& config, const AudioOut& emit)
      : encoding_(config.encoding), emit_(emit), pieceSamples_(static_cast<size_t>(kPieceSeconds * config.outputRate)) {}

  std::vector<float>& Buffer() { return pending_; }
  // Words whose audio is written; they go with the next stretch sent.
  std::vector<ChunkWord>& Words() { return words_; }
  // Every word before `position` is in Words() or sent.
  void Reach(TextPosition position) { reached_ = std::max(reached_, position); }
  int64_t Written() const { return written_ + static_cast<int64_t>(pending_.size()); }

  // Sends what is pending when it is the chunk's first audio or enough of it.
  void Send() {
    if (written_ == 0 || pending_.size() >= pieceSamples_) SendPending();
  }

  // Sends what is pending, however little.
  void SendPending() {
    if (pending_.empty()) return;
    AudioStretch stretch;
    TakeRest(stretch);
    emit_(std::move(stretch));
  }

  // The audio not sent yet, encoded, and the words waiting.
  void TakeRest(AudioStretch& stretch) {
    Encode(pending_.data(), pending_.size(), encoding_, stretch.audio);
    stretch.samples = static_cast<int64_t>(pending_.size());
    stretch.words = std::move(words_);
    stretch.reached = reached_;
    written_ += stretch.samples;
    pending_.clear();
    words_.clear();
  }

 private:
  const Encoding encoding_;
  const AudioOut& emit_;
  const size_t pieceSamples_;
  std::vector<float> pending_;
  std::vector<ChunkWord> words_;
  TextPosition reached_;
  int64_t written_ = 0;
};

// A piece's word timings, moved to the writer in order as their audio is written: a word is
// ready once the backend has reported its end and the audio up to that end is written. The
// backend's samples become output samples from the chunk's start: scaled (resampling, time
// stretch), less what the trimmer dropped from the piece's start, and inside the piece's audio.
class PieceWords {
 public:
  PieceWords(int32_t piece, int64_t offset, bool phonemes, const std::vector<WordTiming>& words)
      : piece_(piece), offset_(offset), phonemes_(phonemes), words_(words) {}

  // While the piece is spoken: the words now ready.
  void Collect(double scale, const EdgeTrimmer& trimmer, ChunkWriter& writer) {
    if (phonemes_ || trimmer.Leading()) return;  // the piece's start is not settled yet
    const int64_t length = writer.Written() - offset_;
    const auto begin = static_cast<int64_t>(trimmer.Dropped());
    for (; next_ < words_.size(); ++next_) {
      const WordTiming& w = words_[next_];
      if (w.endSample < 0 || std::llround(std::max(w.startSample, w.endSample) * scale) - begin > length) break;
      writer.Words().push_back(Place(w, scale, begin, length));
    }
    // Up to the next word the backend reported, or just past the last one handed on, or past
    // the piece once its words are complete and all handed on.
    if (next_ < words_.size()) writer.Reach({piece_, words_[next_].charStart});
    else if (complete_) writer.Reach({piece_ + 1, 0});
    else if (next_ > 0) writer.Reach({piece_, words_[next_ - 1].charStart + 1});
  }

  void Complete() { complete_ = true; }

  // Once the piece is done (`length` samples): every word left. A phoneme override is one word,
  // the whole piece.
  void Finish(double scale, const EdgeTrimmer& trimmer, int64_t length, ChunkWriter& writer) {
    if (phonemes_) {
      writer.Words().push_back(ChunkWord{piece_, 0, offset_, offset_ + length});
    } else {
      const auto begin = static_cast<int64_t>(trimmer.Dropped());
      for (; next_ < words_.size(); ++next_) writer.Words().push_back(Place(words_[next_], scale, begin, length));
    }
    writer.Reach({piece_ + 1, 0});
  }

 private:
  ChunkWord Place(const WordTiming& w, double scale, int64_t begin, int64_t length) const {
    const int64_t start = std::llround(w.startSample * scale) - begin;
    const int64_t stop = w.endSample < 0 ? length : std::llround(w.endSample * scale) - begin;
    return ChunkWord{piece_, w.charStart, offset_ + std::clamp<int64_t>(start, 0, length),
                     offset_ + std::clamp<int64_t>(std::max(stop, start), 0, length)};
  }

  const int32_t piece_;
  const int64_t offset_;
  const bool phonemes_;
  const std::vector<WordTiming>& words_;
  size_t next_ = 0;
  bool complete_ = false;
};

// One text or phoneme piece: backend audio -> voice transform (a cloned voice, or a time stretch)
// -> resampler -> edge trimmer -> the chunk's writer, each stage passing audio on as it comes.
class PieceSink : public AudioSink {
 public:
  PieceSink(int outputRate, const VoiceTransformParams& transform, EdgeTrimmer& trimmer, PieceWords& words,
            ChunkWriter& writer)
      : outputRate_(outputRate), transform_(transform), trimmer_(trimmer), words_(words), writer_(writer) {}

  void Start(int sampleRate) override {
    inputRate_ = sampleRate;
    resampler_.emplace(sampleRate, outputRate_);
    if (!transform_.IsIdentity()) transformer_.emplace(transform_, sampleRate);
  }

  void WordsComplete() override { words_.Complete(); }
  void Flush() override { writer_.SendPending(); }

  void Audio(const int16_t* samples, size_t count) override {
    input_.resize(count);
    for (size_t i = 0; i < count; ++i) input_[i] = samples[i] / 32768.0f;
    if (!transformer_) {
      Pass(input_);
      return;
    }
    transformed_.clear();
    transformer_->Push(input_.data(), input_.size(), transformed_);
    Pass(transformed_);
  }

  void Finish() {
    if (transformer_) {
      // The backend's word timings scale with the audio's length (Scale).
      transformed_.clear();
      transformer_->Finish(transformed_);
      Pass(transformed_);
    }
    resampled_.clear();
    if (resampler_) resampler_->Finish(resampled_);
    trimmer_.Push(resampled_.data(), resampled_.size(), writer_.Buffer());
    trimmer_.Finish(writer_.Buffer());
  }

  // Backend samples to output samples: the resampling and the transform's time stretch.
  double Scale() const { return (inputRate_ > 0 ? static_cast<double>(outputRate_) / inputRate_ : 1.0) * transform_.timeRatio; }

 private:
  void Pass(const std::vector<float>& input) {
    resampled_.clear();
    resampler_->Push(input.data(), input.size(), resampled_);
    trimmer_.Push(resampled_.data(), resampled_.size(), writer_.Buffer());
    words_.Collect(Scale(), trimmer_, writer_);
    writer_.Send();
  }

  const int outputRate_;
  const VoiceTransformParams& transform_;
  EdgeTrimmer& trimmer_;
  PieceWords& words_;
  ChunkWriter& writer_;
  int inputRate_ = 0;
  std::optional<StreamingVoiceTransform> transformer_;
  std::optional<PieceResampler> resampler_;
  std::vector<float> input_;
  std::vector<float> transformed_;
  std::vector<float> resampled_;
};

}  // namespace

bool SynthesizeChunk(const StreamConfig& config, const ChunkJob& job, const std::atomic<bool>& cancelled,
                     const AudioOut& emit, AudioStretch& tail, bool awaited) {
  ReseedBackendRandom();
  ChunkWriter writer(config, emit);
  const auto margin = static_cast<size_t>(kJoinMarginSeconds * config.outputRate);
  for (size_t i = 0; i < job.pieces.size(); ++i) {
    if (cancelled.load()) return false;
    const PieceJob& piece = job.pieces[i];
    const int64_t offset = writer.Written();
    if (piece.kind == PieceJob::Kind::Break) {
      const auto count = static_cast<size_t>(std::llround(piece.breakMs * config.outputRate / 1000.0));
      writer.Buffer().insert(writer.Buffer().end(), count, 0.0f);
      writer.Send();
      continue;
    }
    // Next to a break, the requested silence must be exactly the silence heard: trim the
    // backend's own digital silence on that side. Where a chunk was cut mid-clause, the
    // backend's utterance-edge silence would be a pause nobody asked for: trim it too.
    float leadThreshold = 0, trailThreshold = 0;
    size_t leadKeep = 0, trailKeep = 0;
    if (IsBreak(job, i - 1)) leadThreshold = kDigitalSilence;
    else if (i == 0 && job.continued) leadThreshold = kQuiet, leadKeep = margin;
    if (IsBreak(job, i + 1)) trailThreshold = kDigitalSilence;
    else if (i + 1 == job.pieces.size() && job.continues) trailThreshold = kQuiet, trailKeep = margin;
    EdgeTrimmer trimmer(leadThreshold, leadKeep, trailThreshold, trailKeep);
    std::vector<WordTiming> backendWords;  // the backend appends to it while it speaks
    PieceWords words(static_cast<int32_t>(i), offset, piece.kind == PieceJob::Kind::Phonemes, backendWords);
    PieceSink sink(config.outputRate, config.transform, trimmer, words, writer);
    SpeakJob awaitedJob;
    const SpeakJob* speak = &piece.speak;
    if (awaited && writer.Written() == 0) {  // nothing of the chunk is heard yet
      awaitedJob = piece.speak;
      awaitedJob.awaited = true;
      speak = &awaitedJob;
    }
    if (!config.backend->Speak(*speak, config.voice, cancelled, sink, backendWords)) return false;
    sink.Finish();
    words.Finish(sink.Scale(), trimmer, writer.Written() - offset, writer);
  }
  writer.TakeRest(tail);
  return true;
}

}  // namespace svc
