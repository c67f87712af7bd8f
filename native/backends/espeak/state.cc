#include "backends/espeak/state.h"

#include <malloc.h>

#include <cstring>

namespace svc {

EspeakState::EspeakState(const EspeakCopy& copy) : copy_(copy) {
  for (size_t i = 0; i < copy.regionCount; ++i) {
    const EspeakRegion& r = copy.regions[i];
    (r.kind == EspeakRegion::kInit ? running_ : voice_).push_back({r.at, r.size});
  }
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
  copy_.WcmdqStop();
  Put(running_, initialRunning_);
  // Words of another language (English in a Spanish text) load a second translator that keeps
  // its own reading state; a fresh process has none, so none is kept.
  if (*copy_.translator2 != nullptr) {
    copy_.DeleteTranslator(*copy_.translator2);
    *copy_.translator2 = nullptr;
  }
  copy_.translator2Language[0] = '\0';
}

void EspeakState::VoiceLoaded() {
  Save(voice_, loadedVoice_);
  // The translator keeps what it read last (the previous word's stress and flags, the clause's
  // letter case): its bytes as loaded. Its size is the allocation's; the pointers in it stay
  // valid while it is the translator in use.
  translator_ = *copy_.translator;
  const auto* bytes = static_cast<const unsigned char*>(translator_);
  loadedTranslator_.assign(bytes, bytes + (bytes ? malloc_usable_size(*copy_.translator) : 0));
}

bool EspeakState::RestoreLoadedVoice() {
  if (translator_ == nullptr || *copy_.translator != translator_) return false;
  Put(voice_, loadedVoice_);
  std::memcpy(*copy_.translator, loadedTranslator_.data(), loadedTranslator_.size());
  copy_.DoVoiceChange(*copy_.voice);
  return true;
}

}  // namespace svc
