#include "onnx/split.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

#include "onnx/wire.h"

namespace svc {
namespace {

using namespace onnx_wire;

struct Node {
  std::string_view whole;
  std::string name, opType;
  std::vector<std::string> inputs, outputs;
  bool hasSubgraph = false;
};

Node ReadNode(const Field& field) {
  Node node;
  node.whole = field.whole;
  for (const Field& f : ReadFields(field.payload)) {
    if (f.wireType != kLengthDelimited) continue;
    if (f.number == kNodeInput) node.inputs.emplace_back(f.payload);
    else if (f.number == kNodeOutput) node.outputs.emplace_back(f.payload);
    else if (f.number == kNodeName) node.name = std::string(f.payload);
    else if (f.number == kNodeOpType) node.opType = std::string(f.payload);
    else if (f.number == kNodeAttribute) {
      for (const Field& a : ReadFields(f.payload))
        if (a.number == kAttributeGraph || a.number == kAttributeGraphs) node.hasSubgraph = true;
    }
  }
  return node;
}

struct Initializer {
  std::string_view whole;
  TensorHeader header;
};

// A float tensor's ValueInfo with no shape: the cut as a graph output and input, where the
// exporter left no value_info for it.
std::string FloatValueInfo(const std::string& name) {
  std::string tensorType, type, info;
  AppendVarint(tensorType, (kTensorTypeElemType << 3) | kVarint);
  AppendVarint(tensorType, kFloat);
  AppendMessage(type, kTypeTensor, tensorType);
  AppendMessage(info, kValueInfoName, name);
  AppendMessage(info, kValueInfoType, type);
  return info;
}

class Graph {
 public:
  explicit Graph(std::string_view bytes) {
    for (const Field& f : ReadFields(bytes)) {
      if (f.wireType != kLengthDelimited) {
        other_.push_back(f.whole);
        continue;
      }
      switch (f.number) {
        case kGraphNode: nodes_.push_back(ReadNode(f)); break;
        case kGraphInitializer: {
          const Initializer init{f.whole, ReadTensorHeader(f.payload)};
          initializerOrder_.push_back(init.header.name);
          initializers_[init.header.name] = init;
          break;
        }
        case kGraphInput: inputs_.push_back({std::string(StringField(f.payload, kValueInfoName)), f.whole}); break;
        case kGraphOutput: outputs_.push_back({std::string(StringField(f.payload, kValueInfoName)), f.whole}); break;
        case kGraphValueInfo: valueInfo_.push_back({std::string(StringField(f.payload, kValueInfoName)), f.whole}); break;
        case kGraphSparseInitializer: throw std::runtime_error("the model has sparse initializers");
        default: other_.push_back(f.whole);
      }
    }
    for (size_t i = 0; i < nodes_.size(); ++i)
      for (const std::string& out : nodes_[i].outputs) producer_[out] = i;
  }

  std::optional<OnnxSplit> Split(const std::string& boundaryNode, std::string& why) const {
    const Node* boundary = nullptr;
    for (const Node& n : nodes_) {
      if (n.hasSubgraph) return Fail(why, "node " + n.name + " has a subgraph");
      if (n.name == boundaryNode) boundary = &n;
    }
    if (boundary == nullptr) return Fail(why, "no node named " + boundaryNode);
    if (boundary->opType != "Conv" || boundary->inputs.size() < 2) return Fail(why, boundaryNode + " is not a Conv");
    for (const auto& [name, init] : initializers_)
      if (init.header.external) return Fail(why, "initializer " + name + " is stored outside the file");
    OnnxSplit split;
    split.cut = boundary->inputs[0];
    if (!producer_.count(split.cut)) return Fail(why, "the input of " + boundaryNode + " is not computed by the graph");
    const auto weight = initializers_.find(boundary->inputs[1]);
    if (weight == initializers_.end() || weight->second.header.dims.size() != 3) return Fail(why, "the weight of " + boundaryNode + " is not a rank-3 initializer");
    split.cutChannels = weight->second.header.dims[1];

    std::vector<std::string> headOutputs{split.cut}, tailOutputs;
    for (const auto& [name, whole] : outputs_) {
      (DependsOn(name, split.cut) ? tailOutputs : headOutputs).push_back(name);
      split.outputs.push_back(name);
    }
    if (tailOutputs.empty()) return Fail(why, "no graph output follows " + boundaryNode);
    split.tailOutputs = tailOutputs;
    const std::set<size_t> headNodes = Ancestors(headOutputs, "");
    const std::set<size_t> tailNodes = Ancestors(tailOutputs, split.cut);

    std::string_view cutInfo;
    for (const auto& [name, whole] : valueInfo_)
      if (name == split.cut) cutInfo = whole;
    const std::string cutValueInfo = cutInfo.empty() ? FloatValueInfo(split.cut) : ValueInfoPayload(cutInfo);

    std::string head, tail;
    const std::set<std::string> headUses = Uses(headNodes), tailUses = Uses(tailNodes);
    for (const auto& [name, whole] : inputs_) {
      if (!initializers_.count(name) || headUses.count(name)) head.append(whole);
      if (!initializers_.count(name) && tailUses.count(name)) {
        tail.append(whole);
        split.tailInputs.push_back(name);
      }
    }
    AppendNodes(head, headNodes, headUses, split.cut);
    AppendNodes(tail, tailNodes, tailUses, split.cut);
    AppendMessage(head, kGraphOutput, cutValueInfo);
    AppendMessage(tail, kGraphInput, cutValueInfo);
    for (const auto& [name, whole] : outputs_) {
      const bool fromTail = std::find(tailOutputs.begin(), tailOutputs.end(), name) != tailOutputs.end();
      (fromTail ? tail : head).append(whole);
    }
    split.head = std::move(head);
    split.tail = std::move(tail);
    return split;
  }

 private:
  static std::optional<OnnxSplit> Fail(std::string& why, const std::string& reason) {
    why = reason;
    return std::nullopt;
  }

  static std::string ValueInfoPayload(std::string_view whole) {
    return std::string(ReadFields(whole).at(0).payload);
  }

  // Whether `tensor` is computed from `from` (or is it).
  bool DependsOn(const std::string& tensor, const std::string& from) const {
    std::vector<std::string> todo{tensor};
    std::set<std::string> seen;
    while (!todo.empty()) {
      const std::string name = todo.back();
      todo.pop_back();
      if (name == from) return true;
      if (!seen.insert(name).second) continue;
      const auto it = producer_.find(name);
      if (it != producer_.end())
        for (const std::string& in : nodes_[it->second].inputs) todo.push_back(in);
    }
    return false;
  }

  // The nodes that compute `outputs`, not looking past `stop` (a tensor fed from outside).
  std::set<size_t> Ancestors(const std::vector<std::string>& outputs, const std::string& stop) const {
    std::set<size_t> found;
    std::vector<std::string> todo(outputs.begin(), outputs.end());
    while (!todo.empty()) {
      const std::string name = todo.back();
      todo.pop_back();
      if (name.empty() || name == stop) continue;
      const auto it = producer_.find(name);
      if (it == producer_.end() || !found.insert(it->second).second) continue;
      for (const std::string& in : nodes_[it->second].inputs) todo.push_back(in);
    }
    return found;
  }

  std::set<std::string> Uses(const std::set<size_t>& nodes) const {
    std::set<std::string> uses;
    for (size_t i : nodes) uses.insert(nodes_[i].inputs.begin(), nodes_[i].inputs.end());
    return uses;
  }

  // The nodes in their original (topological) order, the weights they use, the shapes of the
  // tensors they make, and the graph's other fields (its name, metadata).
  void AppendNodes(std::string& graph, const std::set<size_t>& nodes, const std::set<std::string>& uses, const std::string& cut) const {
    std::set<std::string> made;
    for (size_t i : nodes) {
      graph.append(nodes_[i].whole);
      made.insert(nodes_[i].outputs.begin(), nodes_[i].outputs.end());
    }
    for (const std::string& name : initializerOrder_)
      if (uses.count(name)) graph.append(initializers_.at(name).whole);
    for (const auto& [name, whole] : valueInfo_)
      if (made.count(name) && name != cut) graph.append(whole);
    for (std::string_view whole : other_) graph.append(whole);
  }

  std::vector<Node> nodes_;
  std::unordered_map<std::string, size_t> producer_;
  std::unordered_map<std::string, Initializer> initializers_;
  std::vector<std::string> initializerOrder_;
  std::vector<std::pair<std::string, std::string_view>> inputs_, outputs_, valueInfo_;
  std::vector<std::string_view> other_;
};

}  // namespace

std::optional<OnnxSplit> SplitOnnxModel(const std::string& model, const std::string& boundaryNode, std::string& why) {
  try {
    std::string rest;
    std::optional<Graph> graph;
    for (const Field& f : ReadFields(model)) {
      if (f.number == kModelGraph && f.wireType == kLengthDelimited) graph.emplace(f.payload);
      else rest.append(f.whole);
    }
    if (!graph) {
      why = "the file has no graph";
      return std::nullopt;
    }
    std::optional<OnnxSplit> split = graph->Split(boundaryNode, why);
    if (!split) return std::nullopt;
    std::string head = rest, tail = rest;
    AppendMessage(head, kModelGraph, split->head);
    AppendMessage(tail, kModelGraph, split->tail);
    split->head = std::move(head);
    split->tail = std::move(tail);
    return split;
  } catch (const std::exception& e) {
    why = std::string("the model's bytes cannot be read: ") + e.what();
    return std::nullopt;
  }
}

}  // namespace svc
