#include "binding/model.h"

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "backends/neural/piper.h"
#include "binding/addon_data.h"
#include "binding/async_task.h"
#include "binding/js_error.h"
#include "binding/model_spec.h"

namespace svc {
namespace {

// Marks the objects that are NativeModels: a plan's `model` is unwrapped only after this check, so
// no other object (another class's, with a borrowed prototype) is taken for one.
constexpr napi_type_tag kModelTag = {0x5c3e8f1d2a6b4c07, 0x9e1f6a2b3c4d5e60};

constexpr int64_t kMaxDimension = (int64_t{1} << 53) - 1;  // the largest integer a JS number holds exactly

Napi::Array Shape(Napi::Env env, const std::vector<int64_t>& shape) {
  Napi::Array out = Napi::Array::New(env, shape.size());
  for (size_t k = 0; k < shape.size(); ++k) out.Set(static_cast<uint32_t>(k), static_cast<double>(shape[k]));
  return out;
}

Napi::Array Specs(Napi::Env env, const std::vector<TensorSpec>& specs) {
  Napi::Array out = Napi::Array::New(env, specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    Napi::Object s = Napi::Object::New(env);
    s.Set("name", specs[i].name);
    s.Set("type", TensorTypeName(specs[i].type));
    s.Set("shape", Shape(env, specs[i].shape));
    out.Set(static_cast<uint32_t>(i), s);
  }
  return out;
}

// { type, device, fallbackReason?, liftedConvolutions, liftedConvolutionsWhy?, loadedFrom, cacheWhy?, sampleRate, hasDurations,
//   windowedVocoder?, windowedVocoderWhy?, speakers, inputs, outputs }
Napi::Object Info(Napi::Env env, const NeuralModel& model) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("type", model.Type());
  const OnnxLoadReport& report = model.Report();
  out.Set("device", report.device);
  if (!report.fallbackReason.empty()) out.Set("fallbackReason", report.fallbackReason);
  out.Set("liftedConvolutions", report.liftedConvolutions);
  if (!report.liftWhy.empty()) out.Set("liftedConvolutionsWhy", report.liftWhy);
  out.Set("loadedFrom", report.fromCache ? "cache" : "file");
  if (!report.cacheWhy.empty()) out.Set("cacheWhy", report.cacheWhy);
  out.Set("sampleRate", model.SampleRate());
  out.Set("hasDurations", model.HasDurations());
  if (const auto* piper = dynamic_cast<const PiperVoice*>(&model)) {
    out.Set("windowedVocoder", piper->Windowed());
    if (!piper->Windowed()) out.Set("windowedVocoderWhy", piper->WindowedWhy());
  }
  const std::vector<std::string> names = model.Speakers();
  Napi::Array speakers = Napi::Array::New(env, names.size());
  for (size_t i = 0; i < names.size(); ++i) speakers.Set(static_cast<uint32_t>(i), names[i]);
  out.Set("speakers", speakers);
  out.Set("inputs", Specs(env, model.Inputs()));
  out.Set("outputs", Specs(env, model.Outputs()));
  return out;
}

// { name, type, shape, data: TypedArray }, copied.
Tensor ReadTensor(const JsArg& tensor) {
  Tensor t;
  t.name = tensor.Field("name").String();
  t.type = ParseTensorType(tensor.Field("type").String());
  for (const JsArg& dimension : tensor.Field("shape").Elements()) t.shape.push_back(dimension.Integer(0, kMaxDimension));
  Napi::TypedArray data = tensor.Field("data").TypedArray();
  const auto* bytes = static_cast<const uint8_t*>(data.ArrayBuffer().Data()) + data.ByteOffset();
  t.bytes.assign(bytes, bytes + data.ByteLength());
  return t;
}

Napi::Object TensorToJs(Napi::Env env, const Tensor& t) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("name", t.name);
  o.Set("type", TensorTypeName(t.type));
  o.Set("shape", Shape(env, t.shape));
  Napi::ArrayBuffer buffer = Napi::ArrayBuffer::New(env, t.bytes.size());
  if (!t.bytes.empty()) std::memcpy(buffer.Data(), t.bytes.data(), t.bytes.size());
  if (t.type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64) o.Set("data", Napi::TypedArrayOf<int64_t>::New(env, t.bytes.size() / 8, buffer, 0));
  else if (t.type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32) o.Set("data", Napi::TypedArrayOf<int32_t>::New(env, t.bytes.size() / 4, buffer, 0));
  else o.Set("data", Napi::TypedArrayOf<float>::New(env, t.bytes.size() / 4, buffer, 0));
  return o;
}

}  // namespace

Napi::Function NativeModel::Define(Napi::Env env) {
  return DefineClass(env, "NativeModel",
                     {InstanceMethod<&NativeModel::Run>("run"), InstanceMethod<&NativeModel::Unload>("unload")});
}

NativeModel::NativeModel(const Napi::CallbackInfo& info) : Napi::ObjectWrap<NativeModel>(info) {
  if (!info[0].IsExternal()) throw JsError(info.Env(), code::kInvalidArgument, "NativeModel: loadModel() makes these");
  model_ = *info[0].As<Napi::External<std::shared_ptr<NeuralModel>>>().Data();
  info.This().As<Napi::Object>().TypeTag(&kModelTag);
}

std::shared_ptr<NeuralModel> NativeModel::Loaded(const JsArg& value) {
  const Napi::Object object = value.Object();
  if (!object.CheckTypeTag(&kModelTag)) value.Refuse("is not a model loadModel() gave");
  const NativeModel* model = Unwrap(object);
  if (!model->model_) value.Refuse("was unloaded");
  return model->model_;
}

// run(inputs: {name, type, shape, data: TypedArray}[], outputs: string[])
//   -> Promise<{name, type, shape, data: Float32Array | BigInt64Array | Int32Array}[]>
Napi::Value NativeModel::Run(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!model_) throw JsError(env, code::kInvalidArgument, "NativeModel.run: the model was unloaded");
  std::vector<Tensor> inputs;
  std::vector<std::string> outputs;
  ThrowingCoded(env, [&] {
    for (const JsArg& tensor : JsArg(info, "NativeModel.run", 0, "inputs").Elements()) inputs.push_back(ReadTensor(tensor));
    for (const JsArg& name : JsArg(info, "NativeModel.run", 1, "outputs").Elements()) outputs.push_back(name.String());
  });
  return RunAsync(
      env, [model = model_, inputs, outputs] { return model->Run(inputs, outputs); },
      [](Napi::Env e, const std::vector<Tensor>& results) {
        Napi::Array out = Napi::Array::New(e, results.size());
        for (size_t i = 0; i < results.size(); ++i) out.Set(static_cast<uint32_t>(i), TensorToJs(e, results[i]));
        return out;
      });
}

// Streams already speaking with the model keep it until they end.
void NativeModel::Unload(const Napi::CallbackInfo&) { model_.reset(); }

Napi::Value LoadModel(const Napi::CallbackInfo& info) {
  NeuralModelSpec spec;
  ThrowingCoded(info.Env(), [&] { spec = ReadModelSpec(JsArg(info, "loadModel", 0, "spec")); });
  return RunAsync(
      info.Env(), [spec] { return LoadNeuralModel(spec); },
      [](Napi::Env e, std::shared_ptr<NeuralModel> model) {
        Napi::Object out = Napi::Object::New(e);
        out.Set("info", Info(e, *model));
        out.Set("model", AddonData::Of(e).modelClass.New({Napi::External<std::shared_ptr<NeuralModel>>::New(e, &model)}));
        return out;
      });
}

Napi::Value OnnxRuntimeVersion(const Napi::CallbackInfo& info) {
  try {
    return Napi::String::New(info.Env(), OnnxVersion());
  } catch (const std::exception& e) {
    throw JsError(info.Env(), CodeOf(e), e.what());
  }
}

}  // namespace svc
