// espeak-ng keeps its state in process globals, so the addon links several copies of it
// (CMakeLists.txt: SVC_TTS_ESPEAK_COPIES; cmake/espeak-copies.cmake renames each copy's symbols).
// An EspeakCopy reaches one copy: its entry points and the state that state.cc resets. A copy
// runs on one thread at a time; different copies run side by side.
#pragma once

#include <espeak-ng/speak_lib.h>

#include <cstddef>

#include "base/random.h"

namespace svc {

// One variable of state.txt in a copy that state.cc copies, with its kind there.
struct EspeakRegion {
  enum Kind { kInit, kVoice } kind;
  void* at;
  size_t size;
};

struct EspeakCopy {
  decltype(&espeak_Initialize) Initialize;
  decltype(&espeak_SetSynthCallback) SetSynthCallback;
  decltype(&espeak_SetVoiceByName) SetVoiceByName;
  decltype(&espeak_SetParameter) SetParameter;
  decltype(&espeak_Synth) Synth;
  decltype(&espeak_SetPhonemeTrace) SetPhonemeTrace;
  // espeak-ng's internals that state.cc uses (libespeak-ng 1.51: src/libespeak-ng/*.h).
  void (*WcmdqStop)();                // empties the command queue and drops libsonic's stream
  void (*DoVoiceChange)(void* voice);  // queues the voice for the wave generator, as a load does
  void (*DeleteTranslator)(void* translator);
  void** voice;              // the voice loaded
  void** translator;         // the current translator (heap)
  void** translator2;        // a second-language one, loaded on demand for foreign words
  char* translator2Language;  // its language
  const EspeakRegion* regions;
  size_t regionCount;
  RandomSource* random;  // the copy's rand()
};

// How many copies the addon holds, and copy `index` (below that).
size_t EspeakCopies();
const EspeakCopy& GetEspeakCopy(size_t index);

}  // namespace svc
