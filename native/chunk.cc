#include "chunk.h"

#include <algorithm>
#include <cmath>

#include "random.h"

namespace svc {
namespace {

// Below half an s16 step: encodes as digital zero.
constexpr float kDigitalSilence = 0.5f / 32768.0f;
// About -54 dBFS: the backends' edge silence and noise floor around an utterance.
constexpr float kQuiet = 0.002f;
// Speech cut mid-clause keeps this much of its edge silence, so words do not collide.
constexpr double kJoinMarginSeconds = 0.015;

size_t SkipLeading(const std::vector<float>& pcm, size_t begin, size_t end, float threshold, size_t keep) {
  size_t first = begin;
  while (first < end && std::fabs(pcm[first]) < threshold) ++first;
  return first - begin > keep ? first - keep : begin;
}

size_t SkipTrailing(const std::vector<float>& pcm, size_t begin, size_t end, float threshold, size_t keep) {
  size_t last = end;
  while (last > begin && std::fabs(pcm[last - 1]) < threshold) --last;
  return end - last > keep ? last + keep : end;
}

// Is the neighbour at `index` (which may lie in the previous or next chunk) a break?
bool IsBreak(const ChunkJob& job, size_t index) {
  if (index == static_cast<size_t>(-1)) return job.breakBefore;
  if (index == job.pieces.size()) return job.breakAfter;
  return job.pieces[index].kind == PieceJob::Kind::Break;
}

}  // namespace

bool SynthesizeChunk(const StreamConfig& config, const ChunkJob& job, const std::atomic<bool>& cancelled,
                     ChunkResult& out) {
  std::vector<float> pcm;
  out.pieceStarts.clear();
  ReseedBackendRandom();
  for (size_t i = 0; i < job.pieces.size(); ++i) {
    if (cancelled.load()) return false;
    const PieceJob& piece = job.pieces[i];
    out.pieceStarts.push_back(static_cast<int64_t>(pcm.size()));
    if (piece.kind == PieceJob::Kind::Break) {
      const auto count = static_cast<size_t>(std::llround(piece.breakMs * config.outputRate / 1000.0));
      pcm.insert(pcm.end(), count, 0.0f);
      continue;
    }
    PieceAudio audio;
    if (!config.backend->Speak(piece.speak, config.voice, cancelled, audio)) return false;
    // Voice-cloning hook: length-preserving, so the backend's word timings stay valid.
    ApplyVoiceTransform(config.transform, audio.sampleRate, audio.samples);
    std::vector<float> resampled = Resample(audio.samples, audio.sampleRate, config.outputRate);
    const double scale = static_cast<double>(config.outputRate) / audio.sampleRate;

    // Next to a break, the requested silence must be exactly the silence heard: trim the
    // backend's own digital silence on that side. Where a chunk was cut mid-clause, the
    // backend's utterance-edge silence would be a pause nobody asked for: trim it too.
    size_t begin = 0, end = resampled.size();
    const auto margin = static_cast<size_t>(kJoinMarginSeconds * config.outputRate);
    if (IsBreak(job, i - 1)) begin = SkipLeading(resampled, begin, end, kDigitalSilence, 0);
    else if (i == 0 && job.continued) begin = SkipLeading(resampled, begin, end, kQuiet, margin);
    if (IsBreak(job, i + 1)) end = SkipTrailing(resampled, begin, end, kDigitalSilence, 0);
    else if (i + 1 == job.pieces.size() && job.continues) end = SkipTrailing(resampled, begin, end, kQuiet, margin);

    const auto offset = static_cast<int64_t>(pcm.size());
    const auto length = static_cast<int64_t>(end - begin);
    for (const WordTiming& w : audio.words) {
      ChunkWord word;
      word.piece = static_cast<int32_t>(i);
      word.charStart = w.charStart;
      const int64_t start = std::llround(w.startSample * scale) - static_cast<int64_t>(begin);
      const int64_t stop = std::llround((w.endSample < 0 ? audio.samples.size() : w.endSample) * scale) -
                           static_cast<int64_t>(begin);
      word.startSample = offset + std::clamp<int64_t>(start, 0, length);
      word.endSample = offset + std::clamp<int64_t>(std::max(stop, start), 0, length);
      out.words.push_back(word);
    }
    pcm.insert(pcm.end(), resampled.begin() + begin, resampled.begin() + end);
  }
  out.pieceStarts.push_back(static_cast<int64_t>(pcm.size()));
  out.samples = static_cast<int64_t>(pcm.size());
  Encode(pcm.data(), pcm.size(), config.encoding, out.audio);
  return true;
}

}  // namespace svc
