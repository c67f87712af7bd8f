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

// Trivially constructible, so reaching it costs no per-call initialisation check: espeak-ng's
// noise sources draw numbers at the audio rate.
struct ThreadRandom {
  random_data data;
  int32_t state[32];  // 128 bytes: the additive generator glibc's rand() uses (TYPE_3)
  bool seeded;
};

ThreadRandom& Current() {
  thread_local ThreadRandom random;
  if (!random.seeded) {
    initstate_r(kDefaultSeed, reinterpret_cast<char*>(random.state), sizeof random.state, &random.data);
    random.seeded = true;
  }
  return random;
}

// random_r's step for the TYPE_3 state that initstate_r set up: each number is the sum of two
// earlier ones, 3 apart in a ring of 31, less its lowest bit. Inline, as espeak-ng calls it at the
// audio rate; the flite byte-identity tests check it against the flite program's rand().
int32_t NextRandom(random_data& r) {
  const uint32_t value = static_cast<uint32_t>(*r.fptr) + static_cast<uint32_t>(*r.rptr);
  *r.fptr = static_cast<int32_t>(value);
  if (++r.fptr >= r.end_ptr) {
    r.fptr = r.state;
    ++r.rptr;
  } else if (++r.rptr >= r.end_ptr) {
    r.rptr = r.state;
  }
  return static_cast<int32_t>(value >> 1);
}

}  // namespace

void ReseedBackendRandom() { srandom_r(kDefaultSeed, &Current().data); }

}  // namespace svc

extern "C" {

__attribute__((visibility("hidden"))) int svc_tts_rand() { return svc::NextRandom(svc::Current().data); }

__attribute__((visibility("hidden"))) void svc_tts_srand(unsigned seed) { srandom_r(seed, &svc::Current().data); }
}
