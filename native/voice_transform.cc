#include "voice_transform.h"

#include <rubberband/RubberBandStretcher.h>

#include "errors.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace svc {

void ApplyVoiceTransform(const VoiceTransformParams& params, int sampleRate, std::vector<float>& samples) {
  if (params.IsIdentity() || samples.empty()) return;
  using RB = RubberBand::RubberBandStretcher;
  // Offline mode sees the whole piece first (study), so the output is aligned with the input and
  // exactly timeRatio times as long; the R3 ("finer") engine is the one that scales formants
  // independently of pitch.
  RB stretcher(static_cast<size_t>(sampleRate), 1,
               RB::OptionProcessOffline | RB::OptionEngineFiner | RB::OptionFormantPreserved |
                   RB::OptionPitchHighQuality | RB::OptionChannelsTogether,
               params.timeRatio, params.pitchScale);
  stretcher.setFormantScale(params.formantScale / params.pitchScale);
  constexpr size_t kBlock = 4096;
  stretcher.setExpectedInputDuration(samples.size());
  stretcher.setMaxProcessSize(kBlock);
  for (size_t at = 0; at < samples.size(); at += kBlock) {
    const float* in = samples.data() + at;
    stretcher.study(&in, std::min(kBlock, samples.size() - at), at + kBlock >= samples.size());
  }
  const auto length = static_cast<size_t>(std::llround(static_cast<double>(samples.size()) * params.timeRatio));
  std::vector<float> out;
  out.reserve(length);
  std::vector<float> block(kBlock);
  auto drain = [&] {
    for (int available; (available = stretcher.available()) > 0;) {
      float* target = block.data();
      const size_t got = stretcher.retrieve(&target, std::min<size_t>(available, kBlock));
      out.insert(out.end(), block.begin(), block.begin() + got);
    }
  };
  for (size_t at = 0; at < samples.size(); at += kBlock) {
    const float* in = samples.data() + at;
    stretcher.process(&in, std::min(kBlock, samples.size() - at), at + kBlock >= samples.size());
    drain();
  }
  drain();
  out.resize(length, 0.0f);  // offline output has that length; guard rounding anyway
  samples.swap(out);
}

VoiceTransformParams ParseVoiceTransform(const Napi::Object& object) {
  auto read = [&object](const char* key) {
    const Napi::Value v = object.Get(key);
    const double x = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : 1.0;
    if (!(x >= 0.25 && x <= 4.0)) throw NativeError(code::kInvalidArgument, std::string("transform.") + key + " must be 0.25..4");
    return x;
  };
  VoiceTransformParams params;
  params.pitchScale = read("pitchScale");
  params.formantScale = read("formantScale");
  return params;
}

}  // namespace svc
