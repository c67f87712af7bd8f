/* How long libflite alone takes from a clause to its first streaming callback with the rms voice,
 * as the flite program runs it: without svc-tts's cache of feature paths (native/backends/flite/features.cc),
 * for a text that opens with that clause (bench/RESULTS.md, "Measurements behind design choices").
 * 200 runs, each 20 ms after the last, as bench/streaming-core.ts spaces its requests:
 *
 *   gcc -O2 -o /tmp/flite-first-audio bench/native/flite-first-audio.c -lflite_cmu_us_rms \
 *     -lflite_usenglish -lflite_cmulex -lflite -lm && /tmp/flite-first-audio
 */
#include <flite/cst_audio.h>
#include <flite/flite.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

cst_voice *register_cmu_us_rms(const char *voxdir);

// The 1000- and 10 000-word texts' first chunk (bench/harness/texts.ts).
static const char *kClause = "The old lighthouse stood at the end of a long spit of sand,";
enum { kRuns = 200 };

static double started_ms, first_ms;

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int on_audio(const cst_wave *w, int start, int size, int last, cst_audio_streaming_info *asi) {
  (void)w, (void)start, (void)size, (void)last, (void)asi;
  if (first_ms < 0) first_ms = now_ms() - started_ms;
  return CST_AUDIO_STREAM_STOP;  // only the first audio is timed
}

static int by_value(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(void) {
  flite_init();
  cst_voice *voice = register_cmu_us_rms(NULL);
  static double runs[kRuns];
  for (int i = 0; i < kRuns; i++) {
    usleep(20000);
    cst_audio_streaming_info *asi = new_audio_streaming_info();
    asi->min_buffsize = 1024;  // as native/backends/flite/backend.cc asks
    asi->asc = on_audio;
    feat_set(voice->features, "streaming_info", audio_streaming_info_val(asi));
    first_ms = -1;
    started_ms = now_ms();
    delete_utterance(flite_synth_text(kClause, voice));
    runs[i] = first_ms;
  }
  qsort(runs, kRuns, sizeof runs[0], by_value);
  printf("first audio: median %.1f ms, p95 %.1f ms, max %.1f ms (%d runs)\n", runs[kRuns / 2], runs[kRuns * 95 / 100],
         runs[kRuns - 1], kRuns);
  return 0;
}
