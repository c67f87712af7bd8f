#include "backends/neural/kokoro.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "backends/neural/phonemes.h"

namespace svc {
namespace {

constexpr char32_t kSpace = U' ';

// kokoro-js's fixes to espeak-ng's IPA for Kokoro's vocabulary (MODELS.md §2.4).
char32_t KokoroSymbol(char32_t c) {
  switch (c) {
    case U'r': return 0x0279;  // ɹ
    case U'x': return U'k';
    case 0x026C: return U'l';  // ɬ
    case 0x02B2: return U'j';  // ʲ
    default: return c;
  }
}

bool IsClausePunctuation(char32_t c) {
  return c == U'.' || c == U'?' || c == U'!' || c == U',' || c == U':' || c == U';';
}

std::vector<float> ReadStyleFile(const KokoroVoiceFile& file) {
  std::ifstream in(file.path, std::ios::binary | std::ios::ate);
  if (!in) throw std::runtime_error("MODEL_PACK_INVALID: voice file " + file.path + " cannot be read");
  const auto size = static_cast<size_t>(in.tellg());
  if (size == 0 || size % (KokoroModel::kStyleSize * sizeof(float)) != 0) {
    throw std::runtime_error("MODEL_PACK_INVALID: voice file " + file.path + " has " + std::to_string(size) +
                             " bytes, not rows of 256 float32 (kokoro-js files are 522240 bytes)");
  }
  std::vector<float> values(size / sizeof(float));
  in.seekg(0);
  in.read(reinterpret_cast<char*>(values.data()), static_cast<std::streamsize>(size));
  for (float v : values)
    if (!std::isfinite(v)) throw std::runtime_error("MODEL_PACK_INVALID: voice file " + file.path + " holds non-finite values");
  return values;
}

}  // namespace

KokoroModel::KokoroModel(OnnxSession session, KokoroConfig config) : NeuralModel(std::move(session)), config_(std::move(config)) {
  // Exports differ in names (MODELS.md §2.1): bind by the session's own.
  idsInput_ = FindInput("input_ids") ? "input_ids" : "tokens";
  RequireInput(idsInput_, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64);
  RequireInput("style", ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
  const TensorSpec* speed = FindInput("speed");
  if (speed == nullptr) RequireInput("speed", ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
  integerSpeed_ = speed->type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32;
  if (!integerSpeed_) RequireInput("speed", ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
  audioOutput_ = FindOutput("waveform") ? "waveform" : FindOutput("audio") ? "audio" : "";
  if (audioOutput_.empty()) throw std::runtime_error("MODEL_PACK_INVALID: the model has no 'waveform' or 'audio' output");
  durationOutput_ = FindOutput("durations") ? "durations" : FindOutput("duration") ? "duration" : "";
  if (config_.voices.empty()) throw std::runtime_error("MODEL_PACK_INVALID: the pack has no voice style files");
  for (const KokoroVoiceFile& file : config_.voices) styles_[file.name] = ReadStyleFile(file);

  // Warm-up with the first voice; it also proves the model takes our inputs.
  SpeakJob probe;
  probe.text = WarmUpText(config_.probeText);
  std::atomic<bool> never{false};
  PieceAudio audio;
  VoiceParams params;
  params.voice = config_.voices.front().name;
  SpeakPiece(probe, params, never, audio);
  if (audio.samples.empty()) throw std::runtime_error("MODEL_PACK_INVALID: the model made no audio for the probe text");
}

std::vector<std::string> KokoroModel::Speakers() const {
  std::vector<std::string> names;
  for (const KokoroVoiceFile& file : config_.voices) names.push_back(file.name);
  return names;
}

const std::vector<float>& KokoroModel::Style(const std::string& spec) {
  auto plain = styles_.find(spec);
  if (plain != styles_.end()) return plain->second;
  std::lock_guard<std::mutex> lock(blendMutex_);
  auto cached = blends_.find(spec);
  if (cached != blends_.end()) return cached->second;
  // A blend is the weighted mean of voice packs (KPipeline.load_voice takes the plain mean).
  std::vector<float> mix;
  double total = 0;
  std::stringstream parts(spec);
  std::string part;
  while (std::getline(parts, part, ',')) {
    const auto colon = part.find(':');
    const std::string name = part.substr(0, colon);
    const double weight = colon == std::string::npos ? 1.0 : std::stod(part.substr(colon + 1));
    auto style = styles_.find(name);
    if (style == styles_.end()) throw std::runtime_error("the pack has no voice '" + name + "'");
    if (mix.empty()) mix.assign(style->second.size(), 0.0f);
    const size_t rows = std::min(mix.size(), style->second.size());
    mix.resize(rows);
    for (size_t i = 0; i < rows; ++i) mix[i] += static_cast<float>(weight) * style->second[i];
    total += weight;
  }
  if (mix.empty() || !(total > 0)) throw std::runtime_error("voice blend '" + spec + "' has no positive weight");
  for (float& v : mix) v = static_cast<float>(v / total);
  return blends_.emplace(spec, std::move(mix)).first->second;
}

std::vector<KokoroModel::Batch> KokoroModel::Tokenize(const SpeakJob& job, const std::string& espeakVoice) const {
  const std::vector<PhonemizedWord> words = job.phonemes ? SplitPhonemeWords(job.text) : PhonemizeWords(job.text, espeakVoice);
  std::vector<Batch> batches(1);
  size_t lastClauseEnd = 0;  // words of the current batch up to the last one that ends a clause
  std::vector<std::vector<int64_t>> wordIds;
  for (const PhonemizedWord& word : words) {
    std::vector<int64_t> ids;
    for (char32_t c : word.phonemes) {
      auto it = config_.vocab.find(KokoroSymbol(c));
      if (it != config_.vocab.end()) ids.push_back(it->second);  // Kokoro drops what it has no symbol for
    }
    wordIds.push_back(std::move(ids));
  }
  // Cut long text under the token limit, at the last clause punctuation that fits.
  std::vector<size_t> batchStart = {0};
  size_t tokens = 0;
  for (size_t w = 0; w < words.size(); ++w) {
    const size_t cost = wordIds[w].size() + (w > batchStart.back() && !words[w].joined ? 1 : 0);
    if (tokens + cost > kMaxTokens && w > batchStart.back()) {
      const size_t cut = lastClauseEnd > batchStart.back() ? lastClauseEnd : w;
      batchStart.push_back(cut);
      tokens = 0;
      for (size_t k = cut; k < w; ++k) tokens += wordIds[k].size() + (k > cut && !words[k].joined ? 1 : 0);
      w -= 1;  // re-add this word to the new batch
      continue;
    }
    tokens += cost;
    if (!words[w].phonemes.empty() && IsClausePunctuation(words[w].phonemes.back())) lastClauseEnd = w + 1;
  }
  batchStart.push_back(words.size());
  batches.assign(batchStart.size() - 1, Batch{});
  const int64_t space = config_.vocab.count(kSpace) ? config_.vocab.at(kSpace) : -1;
  for (size_t b = 0; b + 1 < batchStart.size(); ++b) {
    Batch& batch = batches[b];
    for (size_t w = batchStart[b]; w < batchStart[b + 1]; ++w) {
      if (w > batchStart[b] && space >= 0 && !words[w].joined) batch.tokens.push_back(space);
      const size_t first = batch.tokens.size() + 1;  // +1: the leading pad
      const auto& ids = wordIds[w];
      batch.tokens.insert(batch.tokens.end(), ids.begin(), ids.begin() + std::min(ids.size(), kMaxTokens - std::min(kMaxTokens, batch.tokens.size())));
      batch.wordTokens.emplace_back(first, batch.tokens.size() + 1);
      batch.charStarts.push_back(words[w].charStart);
    }
  }
  return batches;
}

int64_t KokoroModel::RunBatch(const Batch& batch, const std::vector<float>& style, double speed, PieceAudio& out) const {
  std::vector<int64_t> ids = {0};
  ids.insert(ids.end(), batch.tokens.begin(), batch.tokens.end());
  ids.push_back(0);
  // The style row is the token count without the pads (MODELS.md §2.5), within the file's rows.
  const size_t rows = style.size() / kStyleSize;
  const size_t row = std::min(batch.tokens.size(), rows - 1);
  const std::vector<float> styleRow(style.begin() + row * kStyleSize, style.begin() + (row + 1) * kStyleSize);
  std::vector<Tensor> inputs = {
      Tensor::Int64(idsInput_, {1, static_cast<int64_t>(ids.size())}, ids),
      Tensor::Float("style", {1, static_cast<int64_t>(kStyleSize)}, styleRow),
      integerSpeed_ ? Tensor::Int32("speed", {1}, {std::max(1, static_cast<int32_t>(std::lround(speed)))})
                    : Tensor::Float("speed", {1}, {static_cast<float>(speed)}),
  };
  std::vector<std::string> outputs = {audioOutput_};
  if (!durationOutput_.empty()) outputs.push_back(durationOutput_);
  std::vector<Tensor> results = Run(inputs, outputs);
  const std::vector<float> audio = results[0].Floats();
  const auto offset = static_cast<int64_t>(out.samples.size());
  out.samples.insert(out.samples.end(), audio.begin(), audio.end());

  std::vector<double> tokenSamples(ids.size(), 1.0);  // without durations: an even spread (an estimate)
  if (results.size() > 1) {
    const Tensor& d = results[1];
    const size_t count = d.type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64 ? d.bytes.size() / 8 : d.bytes.size() / 4;
    if (count == ids.size()) {
      for (size_t i = 0; i < count; ++i) {
        double frames = 0;
        if (d.type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64) {
          int64_t v;
          std::memcpy(&v, d.bytes.data() + i * 8, 8);
          frames = static_cast<double>(v);
        } else {
          float v;
          std::memcpy(&v, d.bytes.data() + i * 4, 4);
          frames = v;
        }
        tokenSamples[i] = frames * kSamplesPerFrame;
      }
    }
  }
  AppendWordTimings(tokenSamples, batch.wordTokens, batch.charStarts, static_cast<int64_t>(audio.size()), offset, out.words);
  return static_cast<int64_t>(audio.size());
}

bool KokoroModel::SpeakPiece(const SpeakJob& job, const VoiceParams& voice, const std::atomic<bool>& cancelled,
                        PieceAudio& out) {
  out.sampleRate = config_.sampleRate;
  const std::vector<float>& style = Style(voice.voice.empty() ? config_.voices.front().name : voice.voice);
  // A piece the text layer gave another reading voice (pinyin, a Latin word in Chinese) keeps it.
  const std::string espeakVoice = !job.voiceOverride.empty() ? job.voiceOverride
                                  : voice.phonemizer.empty() ? config_.espeakVoice
                                                             : voice.phonemizer;
  for (const Batch& batch : Tokenize(job, espeakVoice)) {
    if (cancelled.load()) return false;
    if (batch.tokens.empty()) continue;
    RunBatch(batch, style, voice.Rate() > 0 ? voice.Rate() : 1.0, out);
  }
  return !cancelled.load();
}

}  // namespace svc
