#include "audio/voice_transform.h"

#include <rubberband/RubberBandStretcher.h>

#include <algorithm>
#include <cmath>

namespace svc {

namespace {
constexpr size_t kBlock = 4096;
}  // namespace

// Real-time mode, so that audio comes out as it goes in: a cloned voice's first audio no longer
// waits for its whole piece. The R3 ("finer") engine is the one that scales formants
// independently of pitch. The stretcher is fed its preferred start pad of silence first and its
// start delay is dropped from the output, so output sample i lines up with input sample i.
StreamingVoiceTransform::StreamingVoiceTransform(const VoiceTransformParams& params, int sampleRate)
    : stretcher_(std::make_unique<RubberBand::RubberBandStretcher>(
          static_cast<size_t>(sampleRate), 1,
          RubberBand::RubberBandStretcher::OptionProcessRealTime | RubberBand::RubberBandStretcher::OptionEngineFiner |
              RubberBand::RubberBandStretcher::OptionFormantPreserved |
              RubberBand::RubberBandStretcher::OptionPitchHighQuality,
          params.timeRatio, params.pitchScale)),
      timeRatio_(params.timeRatio) {
  stretcher_->setFormantScale(params.formantScale / params.pitchScale);
  stretcher_->setMaxProcessSize(kBlock);
  toDrop_ = stretcher_->getStartDelay();
  const std::vector<float> pad(stretcher_->getPreferredStartPad(), 0.0f);
  for (size_t at = 0; at < pad.size(); at += kBlock) {
    const float* in = pad.data() + at;
    stretcher_->process(&in, std::min(kBlock, pad.size() - at), false);
  }
}

StreamingVoiceTransform::~StreamingVoiceTransform() = default;

void StreamingVoiceTransform::Push(const float* input, size_t count, std::vector<float>& out) {
  for (size_t at = 0; at < count; at += kBlock) {
    const float* in = input + at;
    const size_t n = std::min(kBlock, count - at);
    stretcher_->process(&in, n, false);
    consumed_ += static_cast<int64_t>(n);
    Retrieve(out);
  }
}

void StreamingVoiceTransform::Finish(std::vector<float>& out) {
  const float* none = nullptr;
  stretcher_->process(&none, 0, true);
  Retrieve(out);
  // The stretcher's real-time output is about, not exactly, timeRatio times the input: the
  // piece ends at exactly that length (word timings scale by it), cut or padded with silence.
  const auto length = std::llround(static_cast<double>(consumed_) * timeRatio_);
  const int64_t missing = length - produced_;
  if (missing > 0) out.insert(out.end(), static_cast<size_t>(missing), 0.0f);
  produced_ = length;
}

// Takes what the stretcher has ready, past its start delay, and never more than the input so far
// accounts for (the rest waits in `held_`, for Finish to pin the length).
void StreamingVoiceTransform::Retrieve(std::vector<float>& out) {
  float block[kBlock];
  for (int available; (available = stretcher_->available()) > 0;) {
    float* target = block;
    size_t got = stretcher_->retrieve(&target, std::min<size_t>(static_cast<size_t>(available), kBlock));
    size_t from = 0;
    if (toDrop_ > 0) {
      from = std::min(toDrop_, got);
      toDrop_ -= from;
    }
    held_.insert(held_.end(), block + from, block + got);
  }
  const auto allowed = std::llround(static_cast<double>(consumed_) * timeRatio_) - produced_;
  const auto take = static_cast<size_t>(std::clamp<int64_t>(allowed, 0, static_cast<int64_t>(held_.size())));
  out.insert(out.end(), held_.begin(), held_.begin() + static_cast<std::ptrdiff_t>(take));
  held_.erase(held_.begin(), held_.begin() + static_cast<std::ptrdiff_t>(take));
  produced_ += static_cast<int64_t>(take);
}

void ApplyVoiceTransform(const VoiceTransformParams& params, int sampleRate, std::vector<float>& samples) {
  if (params.IsIdentity() || samples.empty()) return;
  StreamingVoiceTransform transform(params, sampleRate);
  std::vector<float> out;
  transform.Push(samples.data(), samples.size(), out);
  transform.Finish(out);
  samples.swap(out);
}

}  // namespace svc
