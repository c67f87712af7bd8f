// flite's clustergen vocoder and espeak-ng's noise sources call libc rand(), one generator for
// the whole process: the same request gave different audio each time, depending on what ran
// beside it. Here every thread gets its own generator running glibc's own algorithm (random_r),
// which ReseedBackendRandom restarts at glibc's default seed, 1: a chunk is reproducible, and a
// single sentence matches the flite and espeak-ng programs, which start from that seed. (espeak-ng
// also carries state of its own from one text to the next: native/backends/espeak/state.cc resets it.)
//
// The backends are linked in statically, and CMake renames their calls to rand/srand in its
// copies of their archives (svc_tts_static_archive) to the functions at the end. Each espeak-ng
// copy has a generator of its own instead (native/backends/espeak/copy.inc): a copy only ever
// runs on one thread at a time, so its generator needs no thread-local lookup (a tenth of the cost
// of its per-sample noise).
#include "base/random.h"

namespace svc {
namespace {

RandomSource& Current() {
  thread_local RandomSource generator;
  return generator;
}

}  // namespace

void ReseedBackendRandom() { Current().Seed(); }

}  // namespace svc

extern "C" {

__attribute__((visibility("hidden"))) int svc_tts_rand() { return svc::Current().Next(); }

__attribute__((visibility("hidden"))) void svc_tts_srand(unsigned seed) { svc::Current().Seed(seed); }
}
