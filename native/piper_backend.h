// A Piper voice (VITS exported to ONNX): espeak-ng IPA -> Piper's phoneme ids (BOS, a pad after
// every phoneme, EOS) -> `input`, `input_lengths`, `scales`, `sid` -> float audio. MODELS.md §1.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "onnx_model.h"

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
};

class PiperVoice : public OnnxModel {
 public:
  // Checks the session's interface against the config, reads the probe text, warms up.
  // Throws std::runtime_error("MODEL_PACK_INVALID: ...") for a pack that does not fit.
  PiperVoice(OnnxSession session, PiperConfig config);

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

  PiperConfig config_;
  bool hasSid_ = false;
  std::string audioOutput_;
  std::string durationOutput_;  // a patched voice's second output: frames per id (MODELS.md §1.3)
};

}  // namespace svc
