#include "backends/espeak/state.h"

#include <malloc.h>

#include <cstring>

// The variables of state.txt (beside this file), reached through the names that CMake gave them in
// its copy of libespeak-ng.a (cmake/espeak-state.cmake); their types are espeak-ng's own, so
// they are handled as bytes of the size the archive gives.
#define SVC_ESPEAK_STATE(kind, cname, elf, size) extern "C" unsigned char cname[] asm(elf);
#include "espeak_state_table.h"
#undef SVC_ESPEAK_STATE

// espeak-ng's internal functions used here (libespeak-ng 1.51: src/libespeak-ng/*.h).
extern "C" {
void WcmdqStop();                   // empties the command queue and drops libsonic's stream
void DoVoiceChange(void* voice);    // queues the voice for the wave generator, as a load does
void DeleteTranslator(void* translator);
extern void* voice;  // the voice loaded
}

namespace svc {
namespace {

// The current translator (heap) and a second-language one, loaded on demand for foreign words.
void*& Translator() { return *reinterpret_cast<void**>(svc_espeak_translate_translator); }
void*& SecondTranslator() { return *reinterpret_cast<void**>(svc_espeak_translate_translator2); }

}  // namespace

EspeakState::EspeakState() {
#define SVC_ESPEAK_KIND_init(at, size) running_.push_back({at, size});
#define SVC_ESPEAK_KIND_voice(at, size) voice_.push_back({at, size});
#define SVC_ESPEAK_KIND_named(at, size)
#define SVC_ESPEAK_STATE(kind, cname, elf, size) SVC_ESPEAK_KIND_##kind(cname, size)
#include "espeak_state_table.h"
#undef SVC_ESPEAK_STATE
  Save(running_, initialRunning_);
}

void EspeakState::Save(const std::vector<Region>& regions, std::vector<unsigned char>& into) {
  into.clear();
  for (const Region& r : regions) {
    const auto* bytes = static_cast<const unsigned char*>(r.at);
    into.insert(into.end(), bytes, bytes + r.size);
  }
}

void EspeakState::Put(const std::vector<Region>& regions, const std::vector<unsigned char>& from) {
  const unsigned char* bytes = from.data();
  for (const Region& r : regions) {
    std::memcpy(r.at, bytes, r.size);
    bytes += r.size;
  }
}

void EspeakState::ResetRunningState() {
  WcmdqStop();
  Put(running_, initialRunning_);
  // Words of another language (English in a Spanish text) load a second translator that keeps
  // its own reading state; a fresh process has none, so none is kept.
  if (SecondTranslator() != nullptr) {
    DeleteTranslator(SecondTranslator());
    SecondTranslator() = nullptr;
  }
  svc_espeak_translate_translator2_language[0] = '\0';
}

void EspeakState::VoiceLoaded() {
  Save(voice_, loadedVoice_);
  // The translator keeps what it read last (the previous word's stress and flags, the clause's
  // letter case): its bytes as loaded. Its size is the allocation's; the pointers in it stay
  // valid while it is the translator in use.
  translator_ = Translator();
  const auto* bytes = static_cast<const unsigned char*>(translator_);
  loadedTranslator_.assign(bytes, bytes + (bytes ? malloc_usable_size(Translator()) : 0));
}

bool EspeakState::RestoreLoadedVoice() {
  if (translator_ == nullptr || Translator() != translator_) return false;
  Put(voice_, loadedVoice_);
  std::memcpy(Translator(), loadedTranslator_.data(), loadedTranslator_.size());
  DoVoiceChange(voice);
  return true;
}

}  // namespace svc
