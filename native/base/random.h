// Reproducible randomness for the backends (see random.cc).
#pragma once

namespace svc {

// Restarts this thread's backend random source at the C library's default seed. Called at the
// start of every chunk, so a chunk's audio depends on nothing but its own text and voice.
void ReseedBackendRandom();

// Restarts espeak-ng's random source (one for the process: espeak-ng runs under its lock) at the
// same seed. Called with that lock held, before every text.
void ReseedEspeakRandom();

}  // namespace svc
