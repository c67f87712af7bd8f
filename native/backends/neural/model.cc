#include "backends/neural/model.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace svc {
namespace {

constexpr size_t kSinkSliceSamples = 4096;  // about 0.2 s at a neural model's 22-24 kHz

}  // namespace

void HandOnAudio(const float* samples, size_t count, AudioSink& sink) {
  // In slices, as the streaming backends do: every buffer after the model's output stays small,
  // instead of a chunk-sized copy at each stage.
  std::array<int16_t, kSinkSliceSamples> pcm{};
  for (size_t start = 0; start < count; start += pcm.size()) {
    const size_t slice = std::min(pcm.size(), count - start);
    for (size_t i = 0; i < slice; ++i) {
      const float sample = std::clamp(samples[start + i], -1.0f, 1.0f);
      pcm[i] = static_cast<int16_t>(std::lround(static_cast<double>(sample) * 32767.0));
    }
    sink.Audio(pcm.data(), slice);
  }
}

std::string WarmUpText(const std::string& probe) {
  const size_t end = probe.find_first_of(" ,.");
  return end == 0 || end == std::string::npos ? probe : probe.substr(0, end);
}

bool NeuralModel::Speak(const SpeakJob& job, const VoiceParams& voice, const std::atomic<bool>& cancelled,
                         AudioSink& sink, std::vector<WordTiming>& words) {
  PieceAudio audio;
  const bool complete = SpeakPiece(job, voice, cancelled, audio);
  sink.Start(audio.sampleRate);
  words.insert(words.end(), audio.words.begin(), audio.words.end());  // first: they go with the audio
  sink.WordsComplete();
  HandOnAudio(audio.samples.data(), audio.samples.size(), sink);
  return complete;
}

void AppendWordTimings(const std::vector<double>& tokenSamples, const std::vector<std::pair<size_t, size_t>>& wordTokens,
                       const std::vector<int32_t>& charStarts, int64_t totalSamples, int64_t offset,
                       std::vector<WordTiming>& out) {
  std::vector<double> before(tokenSamples.size() + 1, 0.0);
  for (size_t i = 0; i < tokenSamples.size(); ++i) before[i + 1] = before[i] + std::max(0.0, tokenSamples[i]);
  const double scale = before.back() > 0 ? static_cast<double>(totalSamples) / before.back() : 0.0;
  for (size_t w = 0; w < wordTokens.size(); ++w) {
    const auto [first, last] = wordTokens[w];
    WordTiming timing;
    timing.charStart = charStarts[w];
    timing.startSample = offset + std::llround(before[std::min(first, tokenSamples.size())] * scale);
    timing.endSample = offset + std::llround(before[std::min(last, tokenSamples.size())] * scale);
    out.push_back(timing);
  }
}

}  // namespace svc
