#include "onnx/conv_lift.h"

#include <optional>
#include <stdexcept>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "onnx/wire.h"

namespace svc {
namespace {

using namespace onnx_wire;

// Unsqueeze and Squeeze take their axes as an input from opset 13, as an attribute before.
constexpr int64_t kAxesAsInputOpset = 13;
constexpr std::string_view kSuffix = "/svc.lift2d";

struct Attribute {
  std::string name;
  std::vector<int64_t> ints;
  std::string_view payload;  // the AttributeProto, to keep it unchanged
};

struct Node {
  std::vector<Field> fields;
  std::string opType, domain, name;
  std::vector<std::string_view> inputs, outputs;
  std::vector<Attribute> attributes;
};

Node ReadNode(std::string_view payload) {
  Node node;
  node.fields = ReadFields(payload);
  for (const Field& f : node.fields) {
    if (f.wireType != kLengthDelimited) continue;
    if (f.number == kNodeOpType) node.opType = std::string(f.payload);
    else if (f.number == kNodeDomain) node.domain = std::string(f.payload);
    else if (f.number == kNodeName) node.name = std::string(f.payload);
    else if (f.number == kNodeInput) node.inputs.push_back(f.payload);
    else if (f.number == kNodeOutput) node.outputs.push_back(f.payload);
    else if (f.number == kNodeAttribute) {
      const std::vector<Field> attribute = ReadFields(f.payload);
      node.attributes.push_back({std::string(StringField(f.payload, kAttributeName)), ReadInts(attribute, kAttributeInts), f.payload});
    }
  }
  return node;
}

std::string IntsAttribute(const std::string& name, const std::vector<int64_t>& values) {
  std::string attribute;
  AppendMessage(attribute, kAttributeName, name);
  AppendVarintField(attribute, kAttributeType, kAttributeTypeInts);
  for (int64_t v : values) AppendVarintField(attribute, kAttributeInts, static_cast<uint64_t>(v));
  return attribute;
}

bool IsDefaultDomain(std::string_view domain) { return domain.empty() || domain == "ai.onnx"; }

class Lifter {
 public:
  Lifter(std::string_view graph, int64_t opset) : opset_(opset) {
    fields_ = ReadFields(graph);
    for (const Field& f : fields_) {
      if (f.wireType != kLengthDelimited) continue;
      if (f.number == kGraphSparseInitializer) throw std::runtime_error("it has sparse initializers");
      if (f.number == kGraphInitializer) {
        const TensorHeader tensor = ReadTensorHeader(f.payload);
        if (tensor.external) throw std::runtime_error("its weights are stored outside the file");
        weightRanks_[tensor.name] = tensor.dims.size();
        names_.insert(tensor.name);
      } else if (f.number == kGraphInput || f.number == kGraphOutput || f.number == kGraphValueInfo) {
        names_.emplace(StringField(f.payload, kValueInfoName));
      } else if (f.number == kGraphNode) {
        Node& node = nodes_.emplace(&f, ReadNode(f.payload)).first->second;
        for (const auto* tensors : {&node.inputs, &node.outputs})
          for (std::string_view tensor : *tensors) names_.emplace(tensor);
        names_.insert(node.name);
      }
    }
  }

  // The graph with its 1-D convolutions lifted; lifted() says how many.
  std::string Rewrite() {
    std::string graph;
    for (const Field& f : fields_) {
      if (f.number == kGraphNode && f.wireType == kLengthDelimited) AppendNode(graph, f.whole, nodes_.at(&f));
      else graph.append(f.whole);
    }
    if (lifted_ > 0 && opset_ >= kAxesAsInputOpset) graph.append(AxesInitializer());
    return graph;
  }

  int lifted() const { return lifted_; }

 private:
  void AppendNode(std::string& graph, std::string_view whole, const Node& node) {
    if (!Liftable(node)) {
      graph.append(whole);
      return;
    }
    const std::string data = Unsqueezed(graph, node.inputs[0], node.name), weight = Unsqueezed(graph, node.inputs[1], node.name);
    const std::string output(node.outputs[0]);
    const std::string output2d = Fresh(output + std::string(kSuffix));
    std::string rewritten;
    size_t input = 0, out = 0, attribute = 0;
    for (const Field& f : node.fields) {
      if (f.number == kNodeInput && f.wireType == kLengthDelimited) {
        AppendMessage(rewritten, kNodeInput, input == 0 ? data : input == 1 ? weight : std::string(f.payload));
        ++input;
      } else if (f.number == kNodeOutput && f.wireType == kLengthDelimited) {
        AppendMessage(rewritten, kNodeOutput, out++ == 0 ? output2d : std::string(f.payload));
      } else if (f.number == kNodeAttribute && f.wireType == kLengthDelimited) {
        AppendMessage(rewritten, kNodeAttribute, Lifted(node.attributes.at(attribute++)));
      } else {
        rewritten.append(f.whole);
      }
    }
    AppendMessage(graph, kGraphNode, rewritten);
    AppendMessage(graph, kGraphNode, AxisNode("Squeeze", output2d, output, node.name + std::string(kSuffix) + "/squeeze"));
    ++lifted_;
  }

  bool Liftable(const Node& node) const {
    if ((node.opType != "Conv" && node.opType != "ConvTranspose") || !IsDefaultDomain(node.domain)) return false;
    const auto& inputs = node.inputs;
    if (inputs.size() < 2 || inputs[0].empty() || inputs[1].empty() || node.outputs.empty() || node.outputs[0].empty()) return false;
    std::optional<size_t> kernelRank;
    for (const Attribute& a : node.attributes) {
      const size_t expected = a.name == "pads" ? 2 : 1;
      const bool spatial = a.name == "kernel_shape" || a.name == "strides" || a.name == "dilations" || a.name == "pads" ||
                           a.name == "output_padding" || a.name == "output_shape";
      if (spatial && a.ints.size() != expected) return false;
      if (a.name == "kernel_shape") kernelRank = a.ints.size();
    }
    if (kernelRank) return true;
    const auto weight = weightRanks_.find(std::string(inputs[1]));
    return weight != weightRanks_.end() && weight->second == 3;
  }

  // The attribute for the 2-D node: a height-1 kernel, stride 1, dilation 1, no padding on top.
  static std::string Lifted(const Attribute& a) {
    if (a.name == "kernel_shape" || a.name == "strides" || a.name == "dilations" || a.name == "output_shape")
      return IntsAttribute(a.name, {1, a.ints.at(0)});
    if (a.name == "output_padding") return IntsAttribute(a.name, {0, a.ints.at(0)});
    if (a.name == "pads") return IntsAttribute(a.name, {0, a.ints.at(0), 0, a.ints.at(1)});
    return std::string(a.payload);
  }

  // `tensor` with a height axis, made once before its first lifted use.
  std::string Unsqueezed(std::string& graph, std::string_view tensor, const std::string& nodeName) {
    const auto found = unsqueezed_.find(std::string(tensor));
    if (found != unsqueezed_.end()) return found->second;
    const std::string lifted = Fresh(std::string(tensor) + std::string(kSuffix));
    AppendMessage(graph, kGraphNode, AxisNode("Unsqueeze", std::string(tensor), lifted, nodeName + std::string(kSuffix) + "/unsqueeze_" + std::to_string(unsqueezed_.size())));
    unsqueezed_.emplace(std::string(tensor), lifted);
    return lifted;
  }

  std::string AxisNode(const std::string& opType, const std::string& input, const std::string& output, const std::string& name) {
    std::string node;
    AppendMessage(node, kNodeInput, input);
    if (opset_ >= kAxesAsInputOpset) AppendMessage(node, kNodeInput, AxesName());
    AppendMessage(node, kNodeOutput, output);
    AppendMessage(node, kNodeName, Fresh(name));
    AppendMessage(node, kNodeOpType, opType);
    if (opset_ < kAxesAsInputOpset) AppendMessage(node, kNodeAttribute, IntsAttribute("axes", {2}));
    return node;
  }

  const std::string& AxesName() {
    if (axesName_.empty()) axesName_ = Fresh("svc.lift2d.axes");
    return axesName_;
  }

  std::string AxesInitializer() {
    std::string tensor, raw;
    AppendVarintField(tensor, kTensorDims, 1);
    AppendVarintField(tensor, kTensorDataType, kInt64);
    AppendMessage(tensor, kTensorName, AxesName());
    for (int byte = 0; byte < 8; ++byte) raw.push_back(static_cast<char>(byte == 0 ? 2 : 0));  // int64 2, little-endian
    AppendMessage(tensor, kTensorRawData, raw);
    std::string field;
    AppendMessage(field, kGraphInitializer, tensor);
    return field;
  }

  // A name the graph does not use yet.
  std::string Fresh(const std::string& wanted) {
    std::string name = wanted;
    for (int n = 1; names_.count(name); ++n) name = wanted + "." + std::to_string(n);
    names_.insert(name);
    return name;
  }

  int64_t opset_;
  std::vector<Field> fields_;
  std::unordered_map<const Field*, Node> nodes_;  // each node field of fields_, read once
  std::unordered_map<std::string, size_t> weightRanks_;
  std::unordered_set<std::string> names_;
  std::unordered_map<std::string, std::string> unsqueezed_;
  std::string axesName_;
  int lifted_ = 0;
};

}  // namespace

ConvLift LiftConvolutions(const std::string& model) {
  ConvLift result;
  try {
    const std::vector<Field> fields = ReadFields(model);
    std::optional<int64_t> opset;
    const Field* graph = nullptr;
    for (const Field& f : fields) {
      if (f.wireType != kLengthDelimited) continue;
      if (f.number == kModelGraph) graph = &f;
      if (f.number == kModelOpsetImport && IsDefaultDomain(StringField(f.payload, kOpsetDomain))) {
        for (const Field& o : ReadFields(f.payload))
          if (o.number == kOpsetVersion && o.wireType == kVarint) opset = static_cast<int64_t>(o.varint);
      }
    }
    if (graph == nullptr) throw std::runtime_error("it has no graph");
    if (!opset) throw std::runtime_error("it imports no ONNX operator set");
    Lifter lifter(graph->payload, *opset);
    std::string rewritten = lifter.Rewrite();
    if (lifter.lifted() == 0) {
      result.why = "the model has no 1-D convolution";
      return result;
    }
    for (const Field& f : fields) {
      if (&f == graph) AppendMessage(result.model, kModelGraph, rewritten);
      else result.model.append(f.whole);
    }
    result.lifted = lifter.lifted();
  } catch (const std::exception& e) {
    result = ConvLift{};
    result.why = std::string("the model cannot be rewritten: ") + e.what();
  }
  return result;
}

}  // namespace svc
