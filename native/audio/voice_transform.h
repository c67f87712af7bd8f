// A voice transform for any backend's audio: pitch and formant (spectral envelope) scaling, and a
// time stretch where a backend cannot speak slowly enough, with Rubber Band's R3 engine.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace RubberBand {
class RubberBandStretcher;
}

namespace svc {

struct VoiceTransformParams {
  double pitchScale = 1.0;    // 2.0 is an octave up; the formants stay unless formantScale moves them
  double formantScale = 1.0;  // above 1 moves the spectral envelope up (a shorter vocal tract)
  double timeRatio = 1.0;     // output length over input length: above 1 is slower, at the same pitch

  bool IsIdentity() const { return pitchScale == 1.0 && formantScale == 1.0 && timeRatio == 1.0; }
};

// Transforms mono audio as it arrives: what Push gives out lines up with the input, and after
// Finish the whole output is round(input x timeRatio) samples. One per piece; any pool thread.
class StreamingVoiceTransform {
 public:
  StreamingVoiceTransform(const VoiceTransformParams& params, int sampleRate);
  ~StreamingVoiceTransform();
  StreamingVoiceTransform(const StreamingVoiceTransform&) = delete;
  StreamingVoiceTransform& operator=(const StreamingVoiceTransform&) = delete;

  // Appends what `count` more input samples yield to `out`.
  void Push(const float* input, size_t count, std::vector<float>& out);
  // Appends the rest, the piece pinned to its exact length.
  void Finish(std::vector<float>& out);

 private:
  void Retrieve(std::vector<float>& out);

  std::unique_ptr<RubberBand::RubberBandStretcher> stretcher_;
  double timeRatio_;
  size_t toDrop_ = 0;          // start delay still to drop from the stretcher's output
  std::vector<float> held_;    // output beyond what the input so far accounts for
  int64_t consumed_ = 0;
  int64_t produced_ = 0;
};

// Transforms one complete piece of mono audio in place; its length becomes round(length x
// timeRatio). Thread-safe: every call has its own stretcher, so it runs on any pool thread.
void ApplyVoiceTransform(const VoiceTransformParams& params, int sampleRate, std::vector<float>& samples);

}  // namespace svc
