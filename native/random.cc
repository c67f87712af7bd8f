// flite's clustergen vocoder and espeak-ng's noise sources call libc rand(), one generator for
// the whole process: the same request gave different audio each time, depending on what ran
// beside it. Here every thread gets its own generator running glibc's own algorithm (random_r),
// which ReseedBackendRandom restarts at glibc's default seed, 1: a chunk is reproducible, and a
// single sentence matches the flite and espeak-ng programs, which start from that seed. (espeak-ng
// also carries state of its own from one text to the next: native/espeak_state.cc resets it.)
//
// The backends are linked in statically, and CMake renames their calls to rand/srand in its
// copies of their archives (svc_tts_static_archive) to the two functions at the end.
#include "random.h"

#include <cstdint>
#include <cstdlib>

namespace svc {
namespace {

constexpr unsigned kDefaultSeed = 1;  // what rand() uses before any srand(), per C and glibc

struct ThreadRandom {
  random_data data{};
  char state[128] = {};  // 128 bytes: the additive generator glibc's rand() uses (TYPE_3)

  ThreadRandom() { initstate_r(kDefaultSeed, state, sizeof state, &data); }
};

ThreadRandom& Current() {
  thread_local ThreadRandom random;
  return random;
}

}  // namespace

void ReseedBackendRandom() { srandom_r(kDefaultSeed, &Current().data); }

}  // namespace svc

extern "C" {

__attribute__((visibility("hidden"))) int svc_tts_rand() {
  int32_t value = 0;
  random_r(&svc::Current().data, &value);
  return value;
}

__attribute__((visibility("hidden"))) void svc_tts_srand(unsigned seed) { srandom_r(seed, &svc::Current().data); }
}
