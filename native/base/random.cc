// flite's clustergen vocoder and espeak-ng's noise sources call libc rand(), one generator for
// the whole process: the same request gave different audio each time, depending on what ran
// beside it. Here every thread gets its own generator running glibc's own algorithm (random_r),
// which ReseedBackendRandom restarts at glibc's default seed, 1: a chunk is reproducible, and a
// single sentence matches the flite and espeak-ng programs, which start from that seed. (espeak-ng
// also carries state of its own from one text to the next: native/backends/espeak/state.cc resets it.)
//
// The backends are linked in statically, and CMake renames their calls to rand/srand in its
// copies of their archives (svc_tts_static_archive) to the functions at the end. espeak-ng's go
// to one generator of its own: it only ever runs under its process-wide lock, so its generator
// needs no thread-local lookup (a tenth of the cost of its per-sample noise).
#include "base/random.h"

#include <cstdint>
#include <cstdlib>

namespace svc {
namespace {

constexpr unsigned kDefaultSeed = 1;  // what rand() uses before any srand(), per C and glibc

// Trivially constructible, so reaching it costs no per-call initialisation check: the backends'
// noise sources draw numbers at the audio rate.
struct Generator {
  random_data data;
  int32_t state[32];  // 128 bytes: the additive generator glibc's rand() uses (TYPE_3)
  bool seeded;

  random_data& Data() {
    if (!seeded) {
      initstate_r(kDefaultSeed, reinterpret_cast<char*>(state), sizeof state, &data);
      seeded = true;
    }
    return data;
  }
};

random_data& Current() {
  thread_local Generator generator;
  return generator.Data();
}

random_data& Espeak() {
  static Generator generator;  // used under espeak-ng's lock only
  return generator.Data();
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

void ReseedBackendRandom() { srandom_r(kDefaultSeed, &Current()); }

void ReseedEspeakRandom() { srandom_r(kDefaultSeed, &Espeak()); }

}  // namespace svc

extern "C" {

__attribute__((visibility("hidden"))) int svc_tts_rand() { return svc::NextRandom(svc::Current()); }

__attribute__((visibility("hidden"))) void svc_tts_srand(unsigned seed) { srandom_r(seed, &svc::Current()); }

__attribute__((visibility("hidden"))) int svc_tts_espeak_rand() { return svc::NextRandom(svc::Espeak()); }

__attribute__((visibility("hidden"))) void svc_tts_espeak_srand(unsigned seed) { srandom_r(seed, &svc::Espeak()); }
}
