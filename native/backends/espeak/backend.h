// espeak-ng behind one process-wide lock: the library keeps a single global voice, parameter set,
// callback and static buffers, so every call is serialised (NATIVE.md B3: unlocked use crashes).
#pragma once

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>

#include "backends/backend.h"
#include "backends/espeak/state.h"

namespace svc {

// espeak-ng's default rate and the slowest it reads (espeakRATE_MINIMUM), in words a minute.
constexpr double kEspeakDefaultRate = 175.0, kEspeakMinimumRate = 80.0;

// How much a time stretch must lengthen espeak-ng's audio for a rate (a multiple of the default)
// below the slowest it reads: 1 otherwise.
inline double EspeakStretch(double rate) { return std::max(1.0, kEspeakMinimumRate / (kEspeakDefaultRate * rate)); }

class EspeakBackend : public Backend {
 public:
  // Initialises espeak-ng once per process; `dataPath` empty means the system default. Throws a
  // NativeError when the data cannot be loaded, or when another data path is already in use.
  static EspeakBackend& Initialise(const std::string& dataPath);
  // The initialised backend; throws if Initialise has not succeeded yet.
  static EspeakBackend& Instance();

  bool Speak(const SpeakJob& job, const VoiceParams& voice, const std::atomic<bool>& cancelled,
             AudioSink& sink, std::vector<WordTiming>& words) override;

  // The phonemes espeak-ng would speak for `text` (text in [[ ]] is read as mnemonics),
  // as IPA or as espeak's ASCII mnemonics, clauses joined by spaces.
  std::string Phonemize(const std::string& text, const std::string& voiceName, bool ipa);

  int SampleRate() const { return sampleRate_; }

 private:
  explicit EspeakBackend(const std::string& dataPath);
  // Before every text: espeak-ng's state as a fresh process has it, with `name` as the voice.
  void StartTextLocked(const std::string& name);

  static std::atomic<EspeakBackend*> instance_;
  const std::string dataPath_;
  int sampleRate_ = 0;
  std::unique_ptr<EspeakState> state_;
  std::string currentVoice_;  // the voice loaded ("" when none, or when it must be loaded again)
};

}  // namespace svc
