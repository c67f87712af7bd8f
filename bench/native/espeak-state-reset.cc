// What resetting espeak-ng's state costs before each text (native/backends/espeak/state.cc), against the
// espeak-ng copy and state table of the normal build (build/, after `npx cmake-js compile`):
//
//   g++ -O2 -Inative -Ibuild/generated -o /tmp/espeak-state bench/native/espeak-state-reset.cc native/backends/espeak/state.cc \
//     build/static/libespeak-ng.a /usr/lib/x86_64-linux-gnu/libsonic.so.0 \
//     /usr/lib/x86_64-linux-gnu/libpcaudio.so.0 -lpthread -lm && /tmp/espeak-state
//
// (The copy's rand/srand are renamed to svc_tts_rand/svc_tts_srand, defined below from libc's.)
#include <espeak-ng/speak_lib.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "backends/espeak/state.h"

extern "C" {
int svc_tts_rand() { return rand(); }
void svc_tts_srand(unsigned seed) { srand(seed); }
FILE* svc_tts_stdin = stdin;
FILE* svc_tts_stdout = stdout;
FILE* svc_tts_stderr = stderr;
}

static int Discard(short*, int, espeak_EVENT*) { return 0; }

int main() {
  espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, nullptr, espeakINITIALIZE_PHONEME_EVENTS | espeakINITIALIZE_DONT_EXIT);
  espeak_SetSynthCallback(Discard);
  svc::EspeakState state;
  espeak_SetVoiceByName("en-us+f3");
  state.VoiceLoaded();
  const char* text = "The birch canoe slid on the smooth planks.";
  constexpr int kTexts = 2000;
  double micros = 0;
  for (int i = 0; i < kTexts; ++i) {
    espeak_Synth(text, std::strlen(text) + 1, 0, POS_CHARACTER, 0, espeakCHARS_UTF8, nullptr, nullptr);
    const auto start = std::chrono::steady_clock::now();
    state.ResetRunningState();
    state.RestoreLoadedVoice();
    micros += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  }
  std::printf("reset before a text, voice kept: %.2f us (mean of %d)\n", micros / kTexts, kTexts);
}
