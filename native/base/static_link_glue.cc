// What the statically linked speech libraries (CMakeLists.txt: SVC_TTS_STATIC_LIBS) expect from
// shared libraries we deliberately leave out of the addon. svc-tts only ever asks the engines for
// samples, never to play them, so their audio-device back ends are replaced by devices that do
// not exist instead of dragging ALSA and PulseAudio into every install.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

extern "C" {

// Debian builds its archives as position-independent executables' code, which reaches libc's
// stdin/stdout/stderr with PC-relative relocations a shared object cannot carry. CMake renames
// those references in its copy of each archive (svc_tts_static_archive) to these pointers, which
// are local to the addon and hold libc's streams.
__attribute__((visibility("hidden"))) FILE* svc_tts_stdin = stdin;
__attribute__((visibility("hidden"))) FILE* svc_tts_stdout = stdout;
__attribute__((visibility("hidden"))) FILE* svc_tts_stderr = stderr;

// espeak-ng reads a voice's language with strtok, whose place is one for the process; its copies
// run on several threads at once (native/backends/espeak/copy.inc), so each thread keeps its own.
__attribute__((visibility("hidden"))) char* svc_tts_strtok(char* text, const char* separators) {
  thread_local char* place = nullptr;
  return strtok_r(text, separators, &place);
}

// espeak-ng's pcaudio output: only opened for ENOUTPUT_MODE_SPEAK_AUDIO, which svc-tts never
// asks for (AUDIO_OUTPUT_SYNCHRONOUS); no device, and every other call is a no-op, as pcaudio's
// own are on a null object.
struct audio_object;
audio_object* create_audio_device_object(const char*, const char*, const char*) { return nullptr; }
int audio_object_open(audio_object*, int, uint32_t, uint8_t) { return -1; }
void audio_object_close(audio_object*) {}
void audio_object_destroy(audio_object*) {}
int audio_object_write(audio_object*, const void*, size_t) { return -1; }
int audio_object_drain(audio_object*) { return 0; }
int audio_object_flush(audio_object*) { return 0; }
const char* audio_object_strerror(audio_object*, int) { return "svc-tts plays no audio"; }

// flite's ALSA back end, reached only through play_wave: svc-tts streams flite's samples through
// its own callback instead. Opening fails, as flite's "none" back end does.
struct cst_audiodev_struct;
cst_audiodev_struct* audio_open_alsa(unsigned int, int, int) { return nullptr; }
int audio_close_alsa(cst_audiodev_struct*) { return 0; }
int audio_write_alsa(cst_audiodev_struct*, void*, int) { return 0; }
int audio_drain_alsa(cst_audiodev_struct*) { return 0; }
int audio_flush_alsa(cst_audiodev_struct*) { return 0; }
}
