// Deepest stack flite uses on one text, for the pool's stack size (native/scheduler/pool.h).
// Paints a 1 GiB thread stack, synthesises on it, and reports how much of it was written.
//   g++ -O2 -o /tmp/flite-stack bench/native/stack-depth/flite.cc -lflite_cmu_us_slt -lflite_cmu_us_kal16 \
//     -lflite_usenglish -lflite_cmulex -lflite -lpthread -lm
//   /tmp/flite-stack slt 'a.' 4096 a     # voice, unit, length in bytes, suffix
// Measured (Debian 12's flite): about 128 bytes per character of one token ('a.' x 4096:
// 0.50 MiB; '-', '.', '$', '%', '/' the same); text with spaces, and tokens of 128 bytes: 0.02 MiB.
extern "C" {
#include <flite/flite.h>
cst_voice* register_cmu_us_slt(const char*);
cst_voice* register_cmu_us_kal16(const char*);
}
#include <pthread.h>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <string>
#include <chrono>
static const size_t kStack = 1u << 30;
static cst_voice* voice;
static std::string text;
static void* Run(void*) {
  auto t0 = std::chrono::steady_clock::now();
  cst_wave* w = flite_text_to_wave(text.c_str(), voice);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  fprintf(stderr, "samples %d ms %.0f\n", w ? w->num_samples : -1, ms);
  delete_wave(w);
  return nullptr;
}
int main(int argc, char** argv) {
  flite_init();
  voice = std::string(argv[1]) == "kal16" ? register_cmu_us_kal16(nullptr) : register_cmu_us_slt(nullptr);
  std::string unit = argv[2]; size_t len = atol(argv[3]);
  while (text.size() < len) text += unit;
  text.resize(len); text += argc > 4 ? argv[4] : "";
  void* stack = nullptr;
  posix_memalign(&stack, 4096, kStack);
  memset(stack, 0xA5, kStack);
  pthread_attr_t attr; pthread_attr_init(&attr); pthread_attr_setstack(&attr, stack, kStack);
  pthread_t t; pthread_create(&t, &attr, Run, nullptr); pthread_join(t, nullptr);
  const unsigned char* p = static_cast<unsigned char*>(stack);
  size_t i = 0; while (i < kStack && p[i] == 0xA5) ++i;
  printf("%s %s x%zu: used %.2f MiB\n", argv[1], argv[2], len, (kStack - i) / 1048576.0);
}
