// Deepest stack espeak-ng uses on one text, for the pool's stack size (native/scheduler/pool.h).
//   g++ -O2 -o /tmp/espeak-stack bench/native/stack-depth/espeak.cc -lespeak-ng -lpthread
//   /tmp/espeak-stack en-us 'a.' 128      # voice, unit, length in bytes ([[...]] for phonemes)
// Measured (Debian 12, espeak-ng 1.51): 0.05 MiB for every text tried, initialisation included.
#include <espeak-ng/speak_lib.h>
#include <pthread.h>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <string>
static const size_t kStack = 64u << 20;
static std::string text, voice;
static int OnSynth(short*, int, espeak_EVENT*) { return 0; }
static void* Run(void*) {
  espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, nullptr, espeakINITIALIZE_PHONEME_EVENTS | espeakINITIALIZE_DONT_EXIT);
  espeak_SetSynthCallback(OnSynth);
  espeak_SetVoiceByName(voice.c_str());
  espeak_Synth(text.c_str(), text.size() + 1, 0, POS_CHARACTER, 0, espeakCHARS_UTF8 | espeakPHONEMES, nullptr, nullptr);
  return nullptr;
}
int main(int argc, char** argv) {
  voice = argv[1]; std::string unit = argv[2]; size_t len = atol(argv[3]);
  while (text.size() < len) text += unit;
  text.resize(len);
  void* stack = nullptr; posix_memalign(&stack, 4096, kStack); memset(stack, 0xA5, kStack);
  pthread_attr_t attr; pthread_attr_init(&attr); pthread_attr_setstack(&attr, stack, kStack);
  pthread_t t; pthread_create(&t, &attr, Run, nullptr); pthread_join(t, nullptr);
  const unsigned char* p = static_cast<unsigned char*>(stack); size_t i = 0; while (i < kStack && p[i] == 0xA5) ++i;
  printf("espeak %s '%s' x%zu: used %.3f MiB\n", argv[1], argv[2], len, (kStack - i) / 1048576.0);
}
