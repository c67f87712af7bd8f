{
  "targets": [
    {
      "target_name": "svc_tts",
      "sources": [
        "native/addon.cc", "native/audio.cc", "native/chunk.cc", "native/env_context.cc",
        "native/espeak_backend.cc", "native/flite_backend.cc", "native/pool.cc", "native/random.cc",
        "native/sample_analysis.cc", "native/stream.cc", "native/utf8.cc", "native/voice_transform.cc",
        "native/onnx_runtime.cc", "native/onnx_model.cc", "native/onnx_binding.cc",
        "native/neural_phonemes.cc", "native/piper_backend.cc", "native/kokoro_backend.cc",
        "native/encoder.cc", "native/encoder_binding.cc", "native/encoder_mp3.cc", "native/encoder_opus.cc",
        "native/encoder_flac.cc"
      ],
      "include_dirs": [
        "<!(node -p \"require('node-addon-api').include_dir\")",
        "<!@(pkg-config --cflags-only-I espeak-ng soxr sndfile aubio rubberband opus ogg flac | sed s/-I//g)",
        "third_party/onnxruntime/include"
      ],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS", "NODE_ADDON_API_DISABLE_DEPRECATED",
                  "NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS"],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions", "-std=gnu++17"],
      "cflags_cc": ["-std=c++17", "-fexceptions", "-fvisibility=hidden"],
      "ldflags": ["-Wl,-z,nodelete", "-Wl,-rpath,'$$ORIGIN'"],
      "libraries": [
        "<!@(pkg-config --libs espeak-ng soxr sndfile aubio rubberband opus ogg flac)", "-lmp3lame",
        "-lflite_cmu_us_slt", "-lflite_cmu_us_rms", "-lflite_cmu_us_awb", "-lflite_cmu_us_kal16", "-lflite",
        "<(module_root_dir)/third_party/onnxruntime/lib/libonnxruntime.so.1", "-ldl", "-lpthread"
      ],
      "copies": [{
        "destination": "<(PRODUCT_DIR)",
        "files": ["third_party/onnxruntime/lib/libonnxruntime.so.1", "third_party/onnxruntime/lib/libonnxruntime_providers_shared.so"]
      }]
    }
  ]
}
