#include "binding/model_spec.h"

#include <cstdint>
#include <limits>
#include <string>

#include "base/utf8.h"

namespace svc {
namespace {

constexpr int64_t kMaxThreads = 64;
constexpr int64_t kMaxId = (int64_t{1} << 53) - 1;  // the largest integer a JS number holds exactly
constexpr int64_t kMaxCount = std::numeric_limits<int>::max();

char32_t SingleCodePoint(const std::string& symbol) {
  const std::u32string chars = DecodeUtf8(symbol);
  return chars.size() == 1 ? chars[0] : 0;
}

void ReadPiper(const JsArg& spec, PiperConfig& c) {
  c.sampleRate = static_cast<int>(spec.Field("sampleRate").Integer(8000, 48000));
  c.espeakVoice = spec.Field("espeakVoice").String();
  c.noiseScale = static_cast<float>(spec.Field("noiseScale").Number());
  c.lengthScale = static_cast<float>(spec.Field("lengthScale").Number());
  c.noiseW = static_cast<float>(spec.Field("noiseW").Number());
  c.numSpeakers = static_cast<int>(spec.Field("numSpeakers").Integer(1, kMaxCount));
  c.hopLength = static_cast<int>(spec.Field("hopLength").Integer(1, kMaxCount));
  c.windowedVocoder = spec.Field("windowedVocoder").BooleanOr(true);
  for (const JsArg& entry : spec.Field("phonemeIdMap").Elements()) {
    const std::vector<JsArg> pair = entry.Elements();
    if (pair.size() != 2) entry.Refuse("must be a [symbol, ids] pair");
    const char32_t symbol = SingleCodePoint(pair[0].String());
    const std::vector<JsArg> ids = pair[1].Elements();
    if (symbol == 0) continue;  // multi-code-point keys serve only piper1-gpl's vowel clusters
    std::vector<int64_t>& target = c.phonemeIds[symbol];
    for (const JsArg& id : ids) target.push_back(id.Integer(0, kMaxId));
  }
  for (const JsArg& speaker : spec.Field("speakers").Elements()) c.speakers.push_back(speaker.String());
}

void ReadKokoro(const JsArg& spec, KokoroConfig& c) {
  c.espeakVoice = spec.Field("espeakVoice").String();
  for (const JsArg& entry : spec.Field("vocab").Elements()) {
    const std::vector<JsArg> pair = entry.Elements();
    if (pair.size() != 2) entry.Refuse("must be a [symbol, id] pair");
    const char32_t symbol = SingleCodePoint(pair[0].String());
    const int64_t id = pair[1].Integer(0, kMaxId);
    if (symbol != 0) c.vocab[symbol] = id;
  }
  for (const JsArg& voice : spec.Field("voices").Elements())
    c.voices.push_back({voice.Field("name").String(), voice.Field("path").String()});
}

}  // namespace

NeuralModelSpec ReadModelSpec(const JsArg& spec) {
  NeuralModelSpec out;
  const std::string type = spec.Field("type").String();
  if (type == "piper") out.type = NeuralModelSpec::Type::Piper;
  else if (type == "kokoro") out.type = NeuralModelSpec::Type::Kokoro;
  else spec.Field("type").Refuse("must be 'piper' or 'kokoro'");
  OnnxSessionOptions& session = out.session;
  session.modelPath = spec.Field("modelPath").String();
  session.intraOpThreads = static_cast<int>(spec.Field("threads").IntegerOr(1, 1, kMaxThreads));
  session.device = ParseOnnxDevice(spec.Field("device").StringOr("cpu"));
  session.cudaProviderPath = spec.Field("cudaProviderPath").StringOr("");
  session.liftConvolutions = spec.Field("liftConvolutions").BooleanOr(true);
  session.cache = ModelCache(spec.Field("cacheDir").StringOr(""), spec.Field("cacheKey").StringOr(""));
  const std::string probe = spec.Field("probeText").String();
  if (out.type == NeuralModelSpec::Type::Piper) {
    out.piper.probeText = probe;
    ReadPiper(spec, out.piper);
  } else {
    out.kokoro.probeText = probe;
    ReadKokoro(spec, out.kokoro);
  }
  return out;
}

}  // namespace svc
