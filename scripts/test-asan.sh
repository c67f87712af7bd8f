#!/bin/sh
# Builds the addon and the core's test program with AddressSanitizer (into build-asan/, apart from
# the normal build) and runs the tests that drive native code against them. Node itself is not
# instrumented, so the sanitizer runtime is preloaded; leak detection is off because V8 and the
# leaked-on-purpose singletons (pool, engines) hold memory until exit. Child processes and worker
# threads inherit all of it.
set -eu
cd "$(dirname "$0")/.."

npx cmake-js compile --CDSVC_TTS_ASAN=ON --out build-asan
SVC_TTS_NATIVE_BINDING="$PWD/build-asan/Release/svc_tts.node" \
LD_PRELOAD="$(gcc -print-file-name=libasan.so)" \
ASAN_OPTIONS="detect_leaks=0:abort_on_error=1" \
  npx vitest run test/hardening/cases-native.test.ts test/hardening/native-lifecycle.test.ts test/engine/streaming.test.ts test/native/teardown.test.ts \
    test/audio/formats.test.ts test/engine/timestamps.test.ts test/engine/markup-audio.test.ts \
    test/audio/compressed.test.ts test/hardening/encoder-boundary.test.ts test/native/append.test.ts \
    test/engine/ahead-bound.test.ts test/engine/reproducible.test.ts test/engine/espeak-copies.test.ts test/engine/word-streaming.test.ts \
    test/neural/packs.test.ts test/neural/bad-packs.test.ts test/neural/windowed.test.ts test/neural/lift.test.ts \
    test/native/model.test.ts test/native/core.test.ts test/native/external-memory.test.ts test/native/stretches.test.ts \
    test/engine/audio-memory.test.ts "$@"
