{
  "targets": [
    {
      "target_name": "svc_tts",
      "sources": [
        "native/addon.cc", "native/audio.cc", "native/chunk.cc", "native/env_context.cc",
        "native/espeak_backend.cc", "native/flite_backend.cc", "native/pool.cc", "native/random.cc",
        "native/sample_analysis.cc", "native/stream.cc", "native/utf8.cc", "native/voice_transform.cc"
      ],
      "include_dirs": [
        "<!(node -p \"require('node-addon-api').include_dir\")",
        "<!@(pkg-config --cflags-only-I espeak-ng soxr sndfile aubio rubberband | sed s/-I//g)"
      ],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS", "NODE_ADDON_API_DISABLE_DEPRECATED",
                  "NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS"],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions", "-std=gnu++17"],
      "cflags_cc": ["-std=c++17", "-fexceptions", "-fvisibility=hidden"],
      "ldflags": ["-Wl,-z,nodelete"],
      "libraries": [
        "<!@(pkg-config --libs espeak-ng soxr sndfile aubio rubberband)",
        "-lflite_cmu_us_slt", "-lflite_cmu_us_rms", "-lflite_cmu_us_awb", "-lflite_cmu_us_kal16", "-lflite",
        "-lpthread"
      ]
    }
  ]
}
