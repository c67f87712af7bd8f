// Rewrites an ONNX model's 1-D convolutions as 2-D ones over a height-1 view of the same data.
// ONNX Runtime's CPU kernels for 2-D convolutions (a blocked channel layout, activations fused in)
// are much faster than its 1-D path, and a VITS or Kokoro voice is almost all 1-D convolutions:
// the same products and sums, in less time.
#pragma once

#include <string>

namespace svc {

struct ConvLift {
  std::string model;  // the rewritten model; empty where nothing was lifted
  int lifted = 0;     // the Conv and ConvTranspose nodes rewritten
  std::string why;    // where none was: why not
};

// Each Conv and ConvTranspose of the main graph whose kernel is 1-D (its kernel_shape, else its
// weight initializer's rank) becomes Unsqueeze(axis 2) of its data and weight -> the 2-D node
// (kernel, strides, dilations, pads and output padding given a leading 1 or 0) -> Squeeze(axis 2)
// under the original output's name, so every other node and shape stays as it was. Nodes inside
// subgraphs are left alone. A model it cannot read soundly (malformed bytes, weights stored outside
// the file) comes back unlifted with the reason.
ConvLift LiftConvolutions(const std::string& model);

}  // namespace svc
