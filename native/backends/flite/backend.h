// flite's English voices (slt, rms, awb, kal16). Synthesis is safe on several threads when all
// per-call state lives on the utterance (NATIVE.md C5); only start-up is serialised.
#pragma once

#include "backends/backend.h"

namespace svc {

class FliteBackend : public Backend {
 public:
  static FliteBackend& Instance();

  bool Speak(const SpeakJob& job, const VoiceParams& voice, const std::atomic<bool>& cancelled,
             AudioSink& sink, std::vector<WordTiming>& words) override;

 private:
  FliteBackend();
};

}  // namespace svc
