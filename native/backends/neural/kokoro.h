// A Kokoro-82M model (StyleTTS2 + iSTFTNet exported to ONNX): espeak-ng IPA -> vocabulary ids,
// padded with 0 at both ends, at most 510 per run -> `input_ids`/`tokens`, a 256-float style row
// chosen by token count, `speed` -> 24 kHz audio and (timestamped exports) durations. MODELS.md §2.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/neural/model.h"

namespace svc {

struct KokoroVoiceFile {
  std::string name;  // af_heart
  std::string path;  // raw little-endian float32 [rows][1][256] (kokoro-js voices/<name>.bin)
};

struct KokoroConfig {
  std::map<char32_t, int64_t> vocab;
  std::vector<KokoroVoiceFile> voices;
  std::string espeakVoice = "en-us";  // when the request names none
  int sampleRate = 24000;
  std::string probeText;
};

class KokoroModel : public NeuralModel {
 public:
  static constexpr size_t kMaxTokens = 510;  // 512 positions less the two pads
  static constexpr size_t kStyleSize = 256;
  static constexpr int kSamplesPerFrame = 600;

  KokoroModel(OnnxSession session, KokoroConfig config);

  // voice.voice is a style name ("af_heart") or a blend "af_heart:0.7,am_adam:0.3".
  bool SpeakPiece(const SpeakJob& job, const VoiceParams& voice, const std::atomic<bool>& cancelled,
                  PieceAudio& out) override;

  const char* Type() const override { return "kokoro"; }
  int SampleRate() const override { return config_.sampleRate; }
  std::vector<std::string> Speakers() const override;
  bool HasDurations() const override { return !durationOutput_.empty(); }

 private:
  struct Batch {
    std::vector<int64_t> tokens;  // without the pads
    std::vector<std::pair<size_t, size_t>> wordTokens;  // into the padded ids
    std::vector<int32_t> charStarts;
  };
  std::vector<Batch> Tokenize(const SpeakJob& job, const std::string& espeakVoice) const;
  const std::vector<float>& Style(const std::string& spec);
  int64_t RunBatch(const Batch& batch, const std::vector<float>& style, double speed, PieceAudio& out) const;

  KokoroConfig config_;
  std::string idsInput_;
  std::string audioOutput_;
  std::string durationOutput_;
  bool integerSpeed_ = false;
  std::map<std::string, std::vector<float>> styles_;  // voice name -> rows x 256
  std::mutex blendMutex_;
  std::map<std::string, std::vector<float>> blends_;
};

}  // namespace svc
