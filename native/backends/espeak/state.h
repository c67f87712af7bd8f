// espeak-ng's state between texts. The library keeps filter memories, phases, counters, its
// command queue, echo and text-reading state in file-local variables from one call to the next,
// so the same text came out different after other texts. EspeakState puts that state back to
// what a fresh process has before every text, in microseconds: a text's audio then depends only
// on the text, its voice and its parameters. The variables are listed in state.txt beside this file.
// One EspeakState for each espeak-ng copy (copy.h), called on the thread that holds that copy.
#pragma once

#include <cstddef>
#include <vector>

#include "backends/espeak/copy.h"

namespace svc {

class EspeakState {
 public:
  // Records the copy's running state as espeak_Initialize left it; construct right after it.
  explicit EspeakState(const EspeakCopy& copy);

  // Before every text: running state as in a fresh process, an empty command queue, no
  // second-language translator. A voice selected after this starts from the same state.
  void ResetRunningState();
  // Right after a voice was loaded: records what loading it set.
  void VoiceLoaded();
  // When the voice is already loaded: puts it back as loaded, and has the wave generator take it
  // up again as it does after a load. False when espeak-ng replaced the voice within a text
  // (an SSML voice change), so that it must be loaded again.
  bool RestoreLoadedVoice();

 private:
  struct Region {
    void* at;
    size_t size;
  };
  static void Save(const std::vector<Region>& regions, std::vector<unsigned char>& into);
  static void Put(const std::vector<Region>& regions, const std::vector<unsigned char>& from);

  const EspeakCopy& copy_;
  std::vector<Region> running_, voice_;
  std::vector<unsigned char> initialRunning_, loadedVoice_, loadedTranslator_;
  const void* translator_ = nullptr;  // the translator loadedTranslator_ is a copy of
};

}  // namespace svc
