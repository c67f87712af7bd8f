// A voice transform for any backend's audio: pitch and formant (spectral envelope) scaling with
// Rubber Band's R3 engine, length-preserving so word timings stay where they were.
#pragma once

#include <napi.h>

#include <vector>

namespace svc {

struct VoiceTransformParams {
  double pitchScale = 1.0;    // 2.0 is an octave up; the formants stay unless formantScale moves them
  double formantScale = 1.0;  // above 1 moves the spectral envelope up (a shorter vocal tract)

  bool IsIdentity() const { return pitchScale == 1.0 && formantScale == 1.0; }
};

// Transforms one complete piece of mono audio in place; the length is unchanged. Thread-safe:
// every call has its own stretcher, so it runs on any pool thread.
void ApplyVoiceTransform(const VoiceTransformParams& params, int sampleRate, std::vector<float>& samples);

// Reads { pitchScale, formantScale } (each 0.25..4) on the main thread; throws NativeError
// (invalid argument) otherwise.
VoiceTransformParams ParseVoiceTransform(const Napi::Object& object);

}  // namespace svc
