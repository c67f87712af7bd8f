#include "backends/neural/windowed_vocoder.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "onnx/split.h"

namespace svc {
namespace {

// The probe latent: long enough that a window's context never reaches both of its ends.
constexpr int64_t kProbeFrames = 64;
constexpr int64_t kProbeChangedFrame = 32;
// A vocoder reaching further than this is not the convolutional kind windows suit.
constexpr int64_t kMaxContextFrames = 16;

// Frames [from, to) of a [1, channels, frames] latent.
Tensor Frames(const Tensor& latent, int64_t from, int64_t to) {
  const int64_t channels = latent.shape[1], frames = latent.shape[2];
  const auto* data = reinterpret_cast<const float*>(latent.bytes.data());
  std::vector<float> window(static_cast<size_t>(channels * (to - from)));
  for (int64_t c = 0; c < channels; ++c)
    std::copy(data + c * frames + from, data + c * frames + to, window.begin() + c * (to - from));
  return Tensor::Float(latent.name, {1, channels, to - from}, window);
}

}  // namespace

namespace {

// The cache's entry for the parts: on the CPU, ONNX Runtime's optimized graphs of them (for this
// ONNX Runtime and kind of CPU); elsewhere the lifted parts.
std::string CachePart(bool cpu) { return cpu ? "windowed.cpu-" + OptimizedGraphTag() : "windowed"; }

// Removes the temporary files a failed load leaves.
struct Temporaries {
  std::vector<std::string> paths;
  ~Temporaries() {
    for (const std::string& path : paths) std::remove(path.c_str());
  }
};

}  // namespace

std::unique_ptr<WindowedVocoder> WindowedVocoder::Open(const OnnxSessionOptions& options, const std::string& boundaryNode,
                                                       std::string& why) {
  OnnxEnv();  // first: it sets how large buffers are allocated, the model's bytes among them
  if (std::unique_ptr<WindowedVocoder> cached = FromCache(options)) return cached;
  std::optional<OnnxSplit> found = SplitOnnxModel(ReadModelFile(options.modelPath), boundaryNode, why);
  if (!found) return nullptr;
  OnnxSplit& split = *found;
  if (split.tailOutputs.size() != 1) {
    why = "the vocoder makes more than the audio";
    return nullptr;
  }
  std::unique_ptr<WindowedVocoder> vocoder(new WindowedVocoder());
  vocoder->cut_ = split.cut;
  vocoder->channels_ = split.cutChannels;
  vocoder->tailInputs_ = split.tailInputs;
  vocoder->tailOutput_ = split.tailOutputs.at(0);
  const bool keepOptimized = options.cache.Enabled() && RunsOnCpu(options);
  std::string cacheWhy;
  Temporaries optimized;  // ONNX Runtime's optimized graphs of the parts, renamed into the cache once measured
  if (keepOptimized) {
    for (int i = 0; i < 2 && cacheWhy.empty(); ++i) optimized.paths.push_back(options.cache.TemporaryPath(cacheWhy));
    if (!cacheWhy.empty()) optimized.paths.clear();
  }
  const bool keepLifted = options.cache.Enabled() && !keepOptimized;
  std::string head, tail;  // for keepLifted: the bytes each part was made from
  try {
    OnnxSessionOptions part = options;
    part.cache = ModelCache();
    part.modelBytes = std::move(split.head);
    if (!optimized.paths.empty()) part.optimizedPath = optimized.paths[0];
    vocoder->head_ = LoadOnnxSession(part, keepLifted ? &head : nullptr);
    part.modelBytes = std::move(split.tail);
    if (!optimized.paths.empty()) part.optimizedPath = optimized.paths[1];
    vocoder->tail_ = LoadOnnxSession(part, keepLifted ? &tail : nullptr);
  } catch (const std::exception& e) {
    why = std::string("a part would not load: ") + e.what();
    return nullptr;
  }
  vocoder->Describe(split.outputs);
  try {
    if (!vocoder->Measure(why)) return nullptr;
  } catch (const std::exception& e) {
    why = std::string("the vocoder could not be measured: ") + e.what();
    return nullptr;
  }
  // What the cut and the probe found is kept with the parts: a cached load skips both.
  CacheNotes notes{{"cut", vocoder->cut_},
                   {"channels", std::to_string(vocoder->channels_)},
                   {"hop", std::to_string(vocoder->hop_)},
                   {"context", std::to_string(vocoder->context_)},
                   {"tailOutput", vocoder->tailOutput_},
                   {"headLifted", std::to_string(vocoder->head_.report.liftedConvolutions)},
                   {"headLiftWhy", vocoder->head_.report.liftWhy},
                   {"tailLifted", std::to_string(vocoder->tail_.report.liftedConvolutions)}};
  for (const std::string& input : vocoder->tailInputs_) notes.emplace_back("tailInput", input);
  for (const std::string& output : split.outputs) notes.emplace_back("output", output);
  const std::string part = CachePart(keepOptimized);
  if (keepLifted) {
    cacheWhy = options.cache.Write({{part + ".head.onnx", head}, {part + ".tail.onnx", tail}}, part, notes);
  } else if (!optimized.paths.empty()) {
    cacheWhy = options.cache.Write({}, part, notes, {{part + ".head.onnx", optimized.paths[0]}, {part + ".tail.onnx", optimized.paths[1]}});
    optimized.paths.clear();  // renamed, or removed by Write
  }
  vocoder->head_.report.cacheWhy = cacheWhy;
  return vocoder;
}

std::unique_ptr<WindowedVocoder> WindowedVocoder::FromCache(const OnnxSessionOptions& options) {
  if (!options.cache.Enabled()) return nullptr;
  const bool cpu = RunsOnCpu(options);
  const std::string part = CachePart(cpu);
  const std::optional<CacheNotes> notes = options.cache.ReadNotes(part);
  if (!notes) return nullptr;
  std::unique_ptr<WindowedVocoder> vocoder(new WindowedVocoder());
  vocoder->cut_ = NoteOf(*notes, "cut");
  vocoder->channels_ = std::atoll(NoteOf(*notes, "channels").c_str());
  vocoder->hop_ = std::atoll(NoteOf(*notes, "hop").c_str());
  vocoder->context_ = std::atoll(NoteOf(*notes, "context").c_str());
  vocoder->tailOutput_ = NoteOf(*notes, "tailOutput");
  vocoder->tailInputs_ = NotesOf(*notes, "tailInput");
  try {
    OnnxSessionOptions parts = options;
    parts.cache = ModelCache();
    parts.liftConvolutions = false;  // the parts were kept lifted
    parts.optimized = cpu;
    parts.modelPath = options.cache.Path(part + ".head.onnx");
    vocoder->head_ = LoadOnnxSession(parts);
    parts.modelPath = options.cache.Path(part + ".tail.onnx");
    vocoder->tail_ = LoadOnnxSession(parts);
  } catch (const std::exception&) {
    return nullptr;  // a damaged entry: the parts are made again, and written over it
  }
  vocoder->head_.report.liftedConvolutions = std::atoi(NoteOf(*notes, "headLifted").c_str());
  vocoder->head_.report.liftWhy = NoteOf(*notes, "headLiftWhy");
  vocoder->tail_.report.liftedConvolutions = std::atoi(NoteOf(*notes, "tailLifted").c_str());
  vocoder->head_.report.fromCache = true;
  vocoder->Describe(NotesOf(*notes, "output"));
  return vocoder;
}

void WindowedVocoder::Describe(const std::vector<std::string>& outputs) {
  inputs_ = DescribeSession(*head_.session, true);
  const std::vector<TensorSpec> headOutputs = DescribeSession(*head_.session, false);
  const std::vector<TensorSpec> tailOutputs = DescribeSession(*tail_.session, false);
  for (const std::string& name : outputs) {
    for (const auto* specs : {&headOutputs, &tailOutputs})
      for (const TensorSpec& spec : *specs)
        if (spec.name == name) outputs_.push_back(spec);
  }
}

bool WindowedVocoder::Measure(std::string& why) {
  // The probe: a random latent, and the same with one frame changed. The samples that differ
  // are those the frame reaches.
  std::vector<Tensor> probeInputs;
  for (const std::string& name : tailInputs_) {
    if (name != "sid") {
      why = "the vocoder takes input '" + name + "'";
      return false;
    }
    probeInputs.push_back(Tensor::Int64("sid", {1}, {0}));
  }
  std::mt19937 random(1);
  std::normal_distribution<float> normal;
  std::vector<float> values(static_cast<size_t>(channels_ * kProbeFrames));
  for (float& v : values) v = normal(random);
  const Tensor probe = Tensor::Float(cut_, {1, channels_, kProbeFrames}, values);
  for (int64_t c = 0; c < channels_; ++c) values[static_cast<size_t>(c * kProbeFrames + kProbeChangedFrame)] += 1.0f;
  const Tensor changed = Tensor::Float(cut_, {1, channels_, kProbeFrames}, values);
  const std::vector<float> whole = RunVocoder(probe, probeInputs).Floats();
  const std::vector<float> other = RunVocoder(changed, probeInputs).Floats();
  if (whole.empty() || whole.size() % kProbeFrames != 0 || other.size() != whole.size()) {
    why = "the vocoder's output is not a whole number of samples per frame";
    return false;
  }
  hop_ = static_cast<int64_t>(whole.size()) / kProbeFrames;
  int64_t first = -1, last = -1;
  for (size_t i = 0; i < whole.size(); ++i) {
    if (whole[i] == other[i]) continue;
    if (first < 0) first = static_cast<int64_t>(i);
    last = static_cast<int64_t>(i);
  }
  if (first < 0) {
    why = "a change to the latent did not change the audio";
    return false;
  }
  const int64_t reach = std::max(kProbeChangedFrame - first / hop_, last / hop_ - kProbeChangedFrame);
  // A convolution's reach is exact: past it, a frame changes nothing at all.
  context_ = reach;
  if (context_ > kMaxContextFrames) {
    why = "the vocoder reaches " + std::to_string(reach) + " frames";
    return false;
  }
  // Windows must give the whole run's audio (a vocoder normalising over time would not).
  std::vector<float> windowed = Decode(probe, 0, kProbeChangedFrame / 2, probeInputs);
  const std::vector<float> rest = Decode(probe, kProbeChangedFrame / 2, kProbeFrames, probeInputs);
  windowed.insert(windowed.end(), rest.begin(), rest.end());
  float worst = 0;
  for (size_t i = 0; i < whole.size() && i < windowed.size(); ++i) worst = std::max(worst, std::abs(whole[i] - windowed[i]));
  if (windowed.size() != whole.size() || worst > 1e-5f) {
    why = "windows of the latent do not reproduce the whole run";
    return false;
  }
  return true;
}

OnnxLoadReport WindowedVocoder::Report() const {
  OnnxLoadReport report = head_.report;
  report.liftedConvolutions += tail_.report.liftedConvolutions;
  if (report.liftedConvolutions > 0) report.liftWhy.clear();
  return report;
}

std::vector<Tensor> WindowedVocoder::RunHead(const std::vector<Tensor>& inputs, const std::vector<std::string>& outputs) const {
  return RunSession(*head_.session, inputs, outputs);
}

Tensor WindowedVocoder::RunVocoder(const Tensor& latent, const std::vector<Tensor>& inputs) const {
  std::vector<Tensor> feed{latent};
  for (const std::string& name : tailInputs_) {
    const auto it = std::find_if(inputs.begin(), inputs.end(), [&](const Tensor& t) { return t.name == name; });
    if (it == inputs.end()) throw std::runtime_error("the vocoder needs input '" + name + "'");
    feed.push_back(*it);
  }
  return RunSession(*tail_.session, feed, {tailOutput_}).at(0);
}

std::vector<float> WindowedVocoder::Decode(const Tensor& latent, int64_t start, int64_t end, const std::vector<Tensor>& inputs) const {
  const int64_t frames = latent.shape.at(2);
  const int64_t from = std::max<int64_t>(0, start - context_), to = std::min(frames, end + context_);
  std::vector<float> audio = RunVocoder(from == 0 && to == frames ? latent : Frames(latent, from, to), inputs).Floats();
  const auto skip = static_cast<size_t>((start - from) * hop_), keep = static_cast<size_t>((end - start) * hop_);
  if (audio.size() < skip + keep) throw std::runtime_error("the vocoder made fewer samples than its frames");
  return std::vector<float>(audio.begin() + static_cast<std::ptrdiff_t>(skip), audio.begin() + static_cast<std::ptrdiff_t>(skip + keep));
}

}  // namespace svc
