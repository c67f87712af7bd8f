// Sample-rate conversion (libsoxr, band-limited).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace svc {

// Resamples one piece as its audio arrives (libsoxr, band-limited). In all, the output holds
// round(input * outRate / inRate) samples, so timings and byte counts are exact.
class PieceResampler {
 public:
  PieceResampler(int inRate, int outRate);
  ~PieceResampler();
  PieceResampler(const PieceResampler&) = delete;
  PieceResampler& operator=(const PieceResampler&) = delete;

  // Appends what `count` more input samples yield to `out`.
  void Push(const float* input, size_t count, std::vector<float>& out);
  // Appends the rest: the filter's delay drained, the total pinned to its exact length.
  void Finish(std::vector<float>& out);

 private:
  void Drain(const float* input, size_t count, std::vector<float>& out);

  void* resampler_ = nullptr;  // soxr_t, or null when the rates are equal
  double ratio_;
  int64_t consumed_ = 0;
  int64_t produced_ = 0;
};

// Resamples a whole signal at once (sample analysis): round(input * outRate / inRate) samples.
std::vector<float> Resample(const std::vector<float>& input, int inRate, int outRate);

}  // namespace svc
