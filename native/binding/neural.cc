#include "binding/neural.h"

#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>

#include "binding/async_task.h"
#include "backends/neural/kokoro.h"
#include "backends/neural/phonemes.h"
#include "backends/neural/piper.h"
#include "base/utf8.h"

namespace svc {
namespace {

std::mutex registryMutex;
std::map<uint32_t, std::shared_ptr<NeuralModel>> registry;
uint32_t nextHandle = 1;

std::string String(const Napi::Object& o, const char* key, const std::string& fallback = "") {
  Napi::Value v = o.Get(key);
  return v.IsString() ? v.As<Napi::String>().Utf8Value() : fallback;
}

double Number(const Napi::Object& o, const char* key, double fallback) {
  Napi::Value v = o.Get(key);
  return v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : fallback;
}

char32_t SingleCodePoint(const std::string& symbol) {
  const std::u32string chars = DecodeUtf8(symbol);
  return chars.size() == 1 ? chars[0] : 0;
}

struct LoadRequest {
  std::string type;
  OnnxSessionOptions session;
  PiperConfig piper;
  KokoroConfig kokoro;
};

// Copies the (TypeScript-validated) pack description into plain structs on the main thread.
LoadRequest ParseLoad(const Napi::Object& spec) {
  LoadRequest r;
  r.type = String(spec, "type");
  if (r.type != "piper" && r.type != "kokoro") throw std::invalid_argument("type must be piper or kokoro");
  r.session.modelPath = String(spec, "modelPath");
  r.session.intraOpThreads = static_cast<int>(Number(spec, "threads", 1));
  r.session.device = ParseOnnxDevice(String(spec, "device", "cpu"));
  r.session.cudaProviderPath = String(spec, "cudaProviderPath");
  const Napi::Value lift = spec.Get("liftConvolutions");
  r.session.liftConvolutions = lift.IsUndefined() || lift.ToBoolean().Value();
  const std::string probe = String(spec, "probeText");
  if (r.type == "piper") {
    PiperConfig& c = r.piper;
    c.sampleRate = static_cast<int>(Number(spec, "sampleRate", 22050));
    c.espeakVoice = String(spec, "espeakVoice");
    c.noiseScale = static_cast<float>(Number(spec, "noiseScale", 0.667));
    c.lengthScale = static_cast<float>(Number(spec, "lengthScale", 1.0));
    c.noiseW = static_cast<float>(Number(spec, "noiseW", 0.8));
    c.numSpeakers = static_cast<int>(Number(spec, "numSpeakers", 1));
    c.hopLength = static_cast<int>(Number(spec, "hopLength", 256));
    c.probeText = probe;
    const Napi::Value windowed = spec.Get("windowedVocoder");
    c.windowedVocoder = windowed.IsUndefined() || windowed.ToBoolean().Value();
    Napi::Array map = spec.Get("phonemeIdMap").As<Napi::Array>();
    for (uint32_t i = 0; i < map.Length(); ++i) {
      Napi::Array entry = map.Get(i).As<Napi::Array>();
      const char32_t symbol = SingleCodePoint(entry.Get(0u).As<Napi::String>().Utf8Value());
      if (symbol == 0) continue;  // multi-code-point keys serve only piper1-gpl's vowel clusters
      Napi::Array ids = entry.Get(1u).As<Napi::Array>();
      std::vector<int64_t>& target = c.phonemeIds[symbol];
      for (uint32_t k = 0; k < ids.Length(); ++k) target.push_back(ids.Get(k).As<Napi::Number>().Int64Value());
    }
    Napi::Value speakers = spec.Get("speakers");
    if (speakers.IsArray()) {
      Napi::Array list = speakers.As<Napi::Array>();
      for (uint32_t i = 0; i < list.Length(); ++i) c.speakers.push_back(list.Get(i).As<Napi::String>().Utf8Value());
    }
  } else {
    KokoroConfig& c = r.kokoro;
    c.espeakVoice = String(spec, "espeakVoice", "en-us");
    c.probeText = probe;
    Napi::Array vocab = spec.Get("vocab").As<Napi::Array>();
    for (uint32_t i = 0; i < vocab.Length(); ++i) {
      Napi::Array entry = vocab.Get(i).As<Napi::Array>();
      const char32_t symbol = SingleCodePoint(entry.Get(0u).As<Napi::String>().Utf8Value());
      if (symbol != 0) c.vocab[symbol] = entry.Get(1u).As<Napi::Number>().Int64Value();
    }
    Napi::Array voices = spec.Get("voices").As<Napi::Array>();
    for (uint32_t i = 0; i < voices.Length(); ++i) {
      Napi::Object v = voices.Get(i).As<Napi::Object>();
      c.voices.push_back({String(v, "name"), String(v, "path")});
    }
  }
  return r;
}

Napi::Array Specs(Napi::Env env, const std::vector<TensorSpec>& specs) {
  Napi::Array out = Napi::Array::New(env, specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    Napi::Object s = Napi::Object::New(env);
    s.Set("name", specs[i].name);
    s.Set("type", TensorTypeName(specs[i].type));
    Napi::Array shape = Napi::Array::New(env, specs[i].shape.size());
    for (size_t k = 0; k < specs[i].shape.size(); ++k) shape.Set(static_cast<uint32_t>(k), static_cast<double>(specs[i].shape[k]));
    s.Set("shape", shape);
    out.Set(static_cast<uint32_t>(i), s);
  }
  return out;
}

// loadModel(spec) -> Promise<{ handle, type, device, fallbackReason, liftedConvolutions, liftedConvolutionsWhy,
//   sampleRate, speakers, hasDurations, inputs, outputs }>
Napi::Value LoadModel(const Napi::CallbackInfo& info) {
  if (info.Length() < 1 || !info[0].IsObject()) throw Napi::TypeError::New(info.Env(), "loadModel(spec: object)");
  LoadRequest request;
  try {
    request = ParseLoad(info[0].As<Napi::Object>());
  } catch (const std::exception& e) {
    throw Napi::TypeError::New(info.Env(), e.what());
  }
  return RunAsync(
      info.Env(),
      [request]() -> std::pair<uint32_t, std::shared_ptr<NeuralModel>> {
        std::shared_ptr<NeuralModel> model;
        if (request.type == "piper") {
          std::string why = "not asked for (windowedVocoder: false)";
          std::unique_ptr<WindowedVocoder> vocoder;
          if (request.piper.windowedVocoder) vocoder = WindowedVocoder::Open(request.session, PiperVoice::kVocoderBoundary, why);
          if (vocoder) model = std::make_shared<PiperVoice>(std::move(vocoder), request.piper);
          else model = std::make_shared<PiperVoice>(LoadOnnxSession(request.session), request.piper, why);
        }
        else model = std::make_shared<KokoroModel>(LoadOnnxSession(request.session), request.kokoro);
        std::lock_guard<std::mutex> lock(registryMutex);
        const uint32_t handle = nextHandle++;
        registry[handle] = model;
        return {handle, model};
      },
      [](Napi::Env e, const std::pair<uint32_t, std::shared_ptr<NeuralModel>>& loaded) {
        const NeuralModel& model = *loaded.second;
        Napi::Object out = Napi::Object::New(e);
        out.Set("handle", loaded.first);
        out.Set("type", model.Type());
        const OnnxLoadReport& report = model.Report();
        out.Set("device", report.device);
        if (!report.fallbackReason.empty()) out.Set("fallbackReason", report.fallbackReason);
        out.Set("liftedConvolutions", report.liftedConvolutions);
        if (!report.liftWhy.empty()) out.Set("liftedConvolutionsWhy", report.liftWhy);
        out.Set("sampleRate", model.SampleRate());
        out.Set("hasDurations", model.HasDurations());
        if (const auto* piper = dynamic_cast<const PiperVoice*>(&model)) {
          out.Set("windowedVocoder", piper->Windowed());
          if (!piper->Windowed()) out.Set("windowedVocoderWhy", piper->WindowedWhy());
        }
        const std::vector<std::string> names = model.Speakers();
        Napi::Array speakers = Napi::Array::New(e, names.size());
        for (size_t i = 0; i < names.size(); ++i) speakers.Set(static_cast<uint32_t>(i), names[i]);
        out.Set("speakers", speakers);
        out.Set("inputs", Specs(e, model.Inputs()));
        out.Set("outputs", Specs(e, model.Outputs()));
        return out;
      });
}

// runModel(handle, inputs: {name, type, shape, data: TypedArray}[], outputs: string[])
//   -> Promise<{name, type, shape, data: Float32Array | BigInt64Array | Int32Array}[]>
Napi::Value RunModel(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 3 || !info[0].IsNumber() || !info[1].IsArray() || !info[2].IsArray())
    throw Napi::TypeError::New(env, "runModel(handle, inputs[], outputs[])");
  std::shared_ptr<NeuralModel> model = FindModel(info[0].As<Napi::Number>().Uint32Value());
  if (!model) throw Napi::Error::New(env, "no loaded model has that handle");
  std::vector<Tensor> inputs;
  std::vector<std::string> outputs;
  try {
    Napi::Array list = info[1].As<Napi::Array>();
    for (uint32_t i = 0; i < list.Length(); ++i) {
      Napi::Object o = list.Get(i).As<Napi::Object>();
      Tensor t;
      t.name = String(o, "name");
      t.type = ParseTensorType(String(o, "type"));
      Napi::Array shape = o.Get("shape").As<Napi::Array>();
      for (uint32_t k = 0; k < shape.Length(); ++k) t.shape.push_back(shape.Get(k).As<Napi::Number>().Int64Value());
      Napi::TypedArray data = o.Get("data").As<Napi::TypedArray>();
      const auto* bytes = static_cast<const uint8_t*>(data.ArrayBuffer().Data()) + data.ByteOffset();
      t.bytes.assign(bytes, bytes + data.ByteLength());
      inputs.push_back(std::move(t));
    }
    Napi::Array names = info[2].As<Napi::Array>();
    for (uint32_t i = 0; i < names.Length(); ++i) outputs.push_back(names.Get(i).As<Napi::String>().Utf8Value());
  } catch (const std::exception& e) {
    throw Napi::TypeError::New(env, e.what());
  }
  return RunAsync(
      env, [model, inputs, outputs] { return model->Run(inputs, outputs); },
      [](Napi::Env e, const std::vector<Tensor>& results) {
        Napi::Array out = Napi::Array::New(e, results.size());
        for (size_t i = 0; i < results.size(); ++i) {
          const Tensor& t = results[i];
          Napi::Object o = Napi::Object::New(e);
          o.Set("name", t.name);
          o.Set("type", TensorTypeName(t.type));
          Napi::Array shape = Napi::Array::New(e, t.shape.size());
          for (size_t k = 0; k < t.shape.size(); ++k) shape.Set(static_cast<uint32_t>(k), static_cast<double>(t.shape[k]));
          o.Set("shape", shape);
          Napi::ArrayBuffer buffer = Napi::ArrayBuffer::New(e, t.bytes.size());
          if (!t.bytes.empty()) std::memcpy(buffer.Data(), t.bytes.data(), t.bytes.size());
          if (t.type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64) o.Set("data", Napi::TypedArrayOf<int64_t>::New(e, t.bytes.size() / 8, buffer, 0));
          else if (t.type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32) o.Set("data", Napi::TypedArrayOf<int32_t>::New(e, t.bytes.size() / 4, buffer, 0));
          else o.Set("data", Napi::TypedArrayOf<float>::New(e, t.bytes.size() / 4, buffer, 0));
          out.Set(static_cast<uint32_t>(i), o);
        }
        return out;
      });
}

// unloadModel(handle): streams already running keep their reference until they end.
void UnloadModel(const Napi::CallbackInfo& info) {
  if (info.Length() < 1 || !info[0].IsNumber()) throw Napi::TypeError::New(info.Env(), "unloadModel(handle)");
  std::lock_guard<std::mutex> lock(registryMutex);
  registry.erase(info[0].As<Napi::Number>().Uint32Value());
}

Napi::Value OnnxRuntimeVersion(const Napi::CallbackInfo& info) {
  try {
    return Napi::String::New(info.Env(), OnnxVersion());
  } catch (const std::exception& e) {
    throw Napi::Error::New(info.Env(), e.what());
  }
}

}  // namespace

std::shared_ptr<NeuralModel> FindModel(uint32_t handle) {
  std::lock_guard<std::mutex> lock(registryMutex);
  auto it = registry.find(handle);
  return it == registry.end() ? nullptr : it->second;
}

void ExportNeural(Napi::Env env, Napi::Object exports) {
  exports.Set("loadModel", Napi::Function::New(env, LoadModel));
  exports.Set("runModel", Napi::Function::New(env, RunModel));
  exports.Set("unloadModel", Napi::Function::New(env, UnloadModel));
  exports.Set("onnxRuntimeVersion", Napi::Function::New(env, OnnxRuntimeVersion));
}

}  // namespace svc
