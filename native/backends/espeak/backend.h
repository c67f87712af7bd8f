// espeak-ng keeps a single global voice, parameter set, callback and static buffers, so one copy
// of it runs one call at a time (NATIVE.md B3: unlocked use crashes). The addon links several
// copies (copy.h): a text takes a free one, or waits for one, and texts on different copies run
// side by side.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

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
  // Initialises espeak-ng once per process, `instances` copies of it (at most the copies linked
  // in; the first call fixes it); `dataPath` empty means the system default. Throws a NativeError
  // when the data cannot be loaded, or when another data path is already in use.
  static EspeakBackend& Initialise(const std::string& dataPath, size_t instances = 1);
  // The initialised backend; throws if Initialise has not succeeded yet.
  static EspeakBackend& Instance();
  // The initialised backend, or null.
  static EspeakBackend* Initialised() { return instance_.load(); }

  bool Speak(const SpeakJob& job, const VoiceParams& voice, const std::atomic<bool>& cancelled,
             AudioSink& sink, std::vector<WordTiming>& words) override;

  // The phonemes espeak-ng would speak for `text` (text in [[ ]] is read as mnemonics),
  // as IPA or as espeak's ASCII mnemonics, clauses joined by spaces.
  std::string Phonemize(const std::string& text, const std::string& voiceName, bool ipa);

  int SampleRate() const { return sampleRate_; }
  size_t Instances() const { return slots_.size(); }
  // The most copies that ever ran texts at once: more than one shows that they run side by side.
  size_t BusyPeak() const { return busyPeak_.load(); }

 private:
  // One copy of espeak-ng, used by one text at a time.
  struct Slot {
    const EspeakCopy* copy;
    std::unique_ptr<EspeakState> state;
    std::string currentVoice;  // the voice loaded ("" when none, or when it must be loaded again)
    bool busy = false;
  };
  // A copy taken for one text, given back when it goes.
  class Lease {
   public:
    Lease(EspeakBackend& backend, const std::string& voice) : backend_(backend), slot_(backend.Take(voice)) {}
    ~Lease() { backend_.GiveBack(slot_); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Slot& operator*() const { return slot_; }

   private:
    EspeakBackend& backend_;
    Slot& slot_;
  };

  EspeakBackend(const std::string& dataPath, size_t instances);
  // A free copy, the one with `voice` loaded if it is free; waits while none is.
  Slot& Take(const std::string& voice);
  void GiveBack(Slot& slot);
  // Before every text: the copy's state as a fresh process has it, with `name` as the voice.
  static void StartText(Slot& slot, const std::string& name);

  static std::atomic<EspeakBackend*> instance_;
  const std::string dataPath_;
  int sampleRate_ = 0;
  std::vector<Slot> slots_;
  std::mutex mutex_;  // guards the slots' busy flags and busy_
  std::condition_variable freed_;
  size_t busy_ = 0;
  std::atomic<size_t> busyPeak_{0};
};

}  // namespace svc
