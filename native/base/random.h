// Reproducible randomness for the backends (see random.cc).
#pragma once

#include <cstdint>
#include <cstdlib>

namespace svc {

// Restarts this thread's backend random source at the C library's default seed. Called at the
// start of every chunk, so a chunk's audio depends on nothing but its own text and voice.
void ReseedBackendRandom();

// glibc's rand(), one generator per object. Trivially constructible, so reaching one costs no
// per-call initialisation check: the backends' noise sources draw numbers at the audio rate.
// Aligned past a cache line and its prefetched neighbour: the espeak-ng copies' generators sit
// side by side, and two sharing a line, each drawn at the audio rate on its own core, would move
// that line between the cores at every sample.
struct alignas(128) RandomSource {
  static constexpr unsigned kDefaultSeed = 1;  // what rand() uses before any srand(), per C and glibc

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
  void Seed(unsigned seed = kDefaultSeed) { srandom_r(seed, &Data()); }

  // random_r's step for the TYPE_3 state that initstate_r set up: each number is the sum of two
  // earlier ones, 3 apart in a ring of 31, less its lowest bit. Inline, as espeak-ng calls it at
  // the audio rate; the flite byte-identity tests check it against the flite program's rand().
  int32_t Next() {
    random_data& r = Data();
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
};

}  // namespace svc
