// A Piper voice (VITS exported to ONNX): espeak-ng IPA -> Piper's phoneme ids (BOS, a pad after
// every phoneme, EOS) -> `input`, `input_lengths`, `scales`, `sid` -> float audio. MODELS.md §1.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/neural/model.h"
#include "backends/neural/windowed_vocoder.h"

namespace svc {

struct PiperConfig {
  int sampleRate = 22050;
  std::string espeakVoice;
  float noiseScale = 0.667f;
  float lengthScale = 1.0f;
  float noiseW = 0.8f;
  int numSpeakers = 1;
  int hopLength = 256;
  std::map<char32_t, std::vector<int64_t>> phonemeIds;
  std::vector<std::string> speakers;  // index = sid
  std::string probeText;              // read at load: every phoneme of it must be in the map
  bool windowedVocoder = true;        // cut the model before its vocoder where it can be (see Speak)
};

class PiperVoice : public NeuralModel {
 public:
  // Both check the model's interface against the config, read the probe text and warm up; they
  // throw std::runtime_error("MODEL_PACK_INVALID: ...") for a pack that does not fit.
  // The model loaded whole; `windowedWhy`: why it is not cut.
  PiperVoice(OnnxSession session, PiperConfig config, std::string windowedWhy);
  // The model cut before its vocoder (WindowedVocoder::Open).
  PiperVoice(std::unique_ptr<WindowedVocoder> vocoder, PiperConfig config);

  // The node official Piper exports name their vocoder's first layer (piper_train's `dec.conv_pre`):
  // where the model is cut, so that a piece awaited by its listener starts with a short window of
  // the vocoder (Speak).
  static constexpr const char* kVocoderBoundary = "/dec/conv_pre/Conv";
  bool Windowed() const { return vocoder_ != nullptr; }
  const std::string& WindowedWhy() const { return windowedWhy_; }  // why not, where it is not

  bool Speak(const SpeakJob& job, const VoiceParams& voice, const std::atomic<bool>& cancelled, AudioSink& sink,
             std::vector<WordTiming>& words) override;
  // With the windowed vocoder, the model's two parts in turn (the whole model is no longer loaded).
  std::vector<Tensor> Run(const std::vector<Tensor>& inputs, const std::vector<std::string>& outputs) const override;

  // voice.voice is the speaker id ("" or "0" for the first speaker).
  bool SpeakPiece(const SpeakJob& job, const VoiceParams& voice, const std::atomic<bool>& cancelled,
                  PieceAudio& out) override;

  // Phoneme ids of a piece, and the id range of each of its words.
  std::vector<int64_t> PhonemeIds(const SpeakJob& job, std::vector<std::pair<size_t, size_t>>& wordTokens,
                                  std::vector<int32_t>& charStarts, std::u32string* unknown) const;

  const char* Type() const override { return "piper"; }
  int SampleRate() const override { return config_.sampleRate; }
  std::vector<std::string> Speakers() const override { return config_.speakers; }
  bool HasDurations() const override { return !durationOutput_.empty(); }

 private:
  void AppendPhoneme(char32_t phoneme, std::vector<int64_t>& ids, std::u32string* unknown) const;
  void Check();  // the interface against the config, the probe text, a warm-up run
  std::vector<Tensor> ModelInputs(const std::vector<int64_t>& ids, const VoiceParams& voice) const;
  // Word timings of a piece from the duration output (or an even spread) over `totalSamples`.
  void TimeWords(const std::vector<Tensor>& results, size_t durationIndex, size_t idCount,
                 const std::vector<std::pair<size_t, size_t>>& wordTokens, const std::vector<int32_t>& charStarts,
                 int64_t totalSamples, std::vector<WordTiming>& out) const;

  PiperConfig config_;
  bool hasSid_ = false;
  std::string audioOutput_;
  std::string durationOutput_;  // a patched voice's second output: frames per id (MODELS.md §1.3)
  std::unique_ptr<WindowedVocoder> vocoder_;
  std::string windowedWhy_;
};

}  // namespace svc
