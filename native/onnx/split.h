// Cuts an ONNX model in two at one tensor, working on the protobuf bytes, so that the part after
// the cut can run on slices of that tensor: a VITS voice's vocoder on windows of its latent frames.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace svc {

struct OnnxSplit {
  std::string head;    // the graph's inputs -> the cut tensor and every output that does not need it
  std::string tail;    // the cut tensor (+ the graph inputs it still needs) -> the other outputs
  std::string cut;     // the tensor's name
  int64_t cutChannels = 0;  // dimension 1 of the cut tensor, read from the boundary node's weight
  std::vector<std::string> tailInputs;   // the graph inputs the tail needs besides the cut
  std::vector<std::string> tailOutputs;
  std::vector<std::string> outputs;      // the whole graph's, in order
};

// Splits at the data input of the node named `boundaryNode`, which must be a Conv whose weight is
// an initializer of rank 3. Returns nothing, with the reason in `why`, for a model it cannot cut
// soundly: no such node, subgraphs, external or sparse weights, malformed bytes.
std::optional<OnnxSplit> SplitOnnxModel(const std::string& model, const std::string& boundaryNode, std::string& why);

}  // namespace svc
