// What the Piper and Kokoro backends share: an ONNX model that speaks a piece in a run (or a few),
// handing its audio on as 16-bit samples, with word timings from the model's token durations.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend.h"
#include "onnx/model.h"

namespace svc {

// A piece's audio as a neural model makes it: float samples at the model's rate, and word timings.
struct PieceAudio {
  int sampleRate = 0;
  std::vector<float> samples;
  std::vector<WordTiming> words;
};

// Float audio in [-1, 1] to the sink as 16-bit samples.
void HandOnAudio(const float* samples, size_t count, AudioSink& sink);

// Word timings from the samples each token lasts: word i spans tokens [wordTokens[i].first,
// wordTokens[i].second). The token times are scaled to `totalSamples` (the audio actually made)
// and shifted by `offset`.
void AppendWordTimings(const std::vector<double>& tokenSamples, const std::vector<std::pair<size_t, size_t>>& wordTokens,
                       const std::vector<int32_t>& charStarts, int64_t totalSamples, int64_t offset,
                       std::vector<WordTiming>& out);

// What a load warms a model up with: the probe text's first word. The first run's one-off work
// (allocation, ONNX Runtime's lazy set-up) is the same for a word as for the sentence, which took
// half of a cached load (bench/RESULTS.md, Model load).
std::string WarmUpText(const std::string& probe);

class NeuralModel : public OnnxModel, public Backend {
 public:
  using OnnxModel::OnnxModel;

  // The Backend interface: the whole piece from SpeakPiece, into the sink as 16-bit samples.
  bool Speak(const SpeakJob& job, const VoiceParams& voice, const std::atomic<bool>& cancelled, AudioSink& sink,
             std::vector<WordTiming>& words) override;

  // One piece in one model run (or a few, under a model's token limit).
  virtual bool SpeakPiece(const SpeakJob& job, const VoiceParams& voice, const std::atomic<bool>& cancelled,
                          PieceAudio& out) = 0;

  virtual const char* Type() const = 0;
  virtual int SampleRate() const = 0;
  virtual std::vector<std::string> Speakers() const = 0;
  virtual bool HasDurations() const = 0;
};

}  // namespace svc
