#include "audio/resampler.h"

#include <soxr.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

namespace svc {

// One soxr filter design per rate pair and thread, cloned per piece: designing the filter costs
// more than running it on a short piece. Pool threads live as long as the process, and so do these.
namespace {

soxr_t NewResampler(int inRate, int outRate) {
  const soxr_io_spec_t io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I);
  const soxr_quality_spec_t quality = soxr_quality_spec(SOXR_HQ, 0);
  soxr_error_t err = nullptr;
  soxr_t resampler = soxr_create(inRate, outRate, 1, &err, &io, &quality, nullptr);
  if (err) throw std::runtime_error(std::string("resampler setup failed: ") + err);
  return resampler;
}

soxr_t ResamplerFor(int inRate, int outRate) {
  thread_local std::map<std::pair<int, int>, soxr_t> cache;
  soxr_t& resampler = cache[{inRate, outRate}];
  if (resampler == nullptr) resampler = NewResampler(inRate, outRate);
  else soxr_clear(resampler);
  return resampler;
}

}  // namespace

PieceResampler::PieceResampler(int inRate, int outRate) : ratio_(static_cast<double>(outRate) / inRate) {
  if (inRate != outRate) resampler_ = ResamplerFor(inRate, outRate);
}

// The cached filter is reused by the next piece on this thread (a piece is resampled on one thread).
PieceResampler::~PieceResampler() = default;

void PieceResampler::Drain(const float* input, size_t count, std::vector<float>& out) {
  auto* resampler = static_cast<soxr_t>(resampler_);
  size_t consumed = 0;
  for (;;) {
    const size_t room = static_cast<size_t>(std::ceil((count - consumed) * ratio_)) + 256;
    const size_t start = out.size();
    out.resize(start + room);
    size_t used = 0, made = 0;
    soxr_error_t err = soxr_process(resampler, input ? input + consumed : nullptr, input ? count - consumed : 0, &used,
                                    out.data() + start, room, &made);
    if (err) throw std::runtime_error(std::string("resampling failed: ") + err);
    out.resize(start + made);
    produced_ += static_cast<int64_t>(made);
    consumed += used;
    if (input ? consumed >= count : made == 0) return;
  }
}

void PieceResampler::Push(const float* input, size_t count, std::vector<float>& out) {
  consumed_ += static_cast<int64_t>(count);
  if (resampler_ == nullptr) {
    out.insert(out.end(), input, input + count);
    produced_ += static_cast<int64_t>(count);
    return;
  }
  if (count > 0) Drain(input, count, out);
}

void PieceResampler::Finish(std::vector<float>& out) {
  const auto expected = static_cast<int64_t>(std::llround(static_cast<double>(consumed_) * ratio_));
  if (resampler_ != nullptr && consumed_ > 0) {
    const size_t before = out.size();
    const int64_t producedBefore = produced_;
    Drain(nullptr, 0, out);
    // Pin the length: drop what the flush made past the exact count.
    const int64_t excess = produced_ - expected;
    if (excess > 0) out.resize(before + static_cast<size_t>(std::max<int64_t>(0, expected - producedBefore)));
  }
  const int64_t total = std::min(produced_, expected);
  if (total < expected) out.insert(out.end(), static_cast<size_t>(expected - total), 0.0f);
  produced_ = expected;
}

std::vector<float> Resample(const std::vector<float>& input, int inRate, int outRate) {
  if (inRate == outRate) return input;
  PieceResampler resampler(inRate, outRate);
  std::vector<float> output;
  resampler.Push(input.data(), input.size(), output);
  resampler.Finish(output);
  return output;
}

}  // namespace svc
