// A voice transform for any backend's audio: pitch and formant (spectral envelope) scaling, and a
// time stretch where a backend cannot speak slowly enough, with Rubber Band's R3 engine.
#pragma once

#include <napi.h>

#include <vector>

namespace svc {

struct VoiceTransformParams {
  double pitchScale = 1.0;    // 2.0 is an octave up; the formants stay unless formantScale moves them
  double formantScale = 1.0;  // above 1 moves the spectral envelope up (a shorter vocal tract)
  double timeRatio = 1.0;     // output length over input length: above 1 is slower, at the same pitch

  bool IsIdentity() const { return pitchScale == 1.0 && formantScale == 1.0 && timeRatio == 1.0; }
};

// Transforms one complete piece of mono audio in place; its length becomes round(length x
// timeRatio). Thread-safe: every call has its own stretcher, so it runs on any pool thread.
void ApplyVoiceTransform(const VoiceTransformParams& params, int sampleRate, std::vector<float>& samples);

// Reads { pitchScale, formantScale } (each 0.25..4) on the main thread; throws NativeError
// (invalid argument) otherwise.
VoiceTransformParams ParseVoiceTransform(const Napi::Object& object);

}  // namespace svc
