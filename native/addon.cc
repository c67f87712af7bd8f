// The addon's entry: per-environment context, and the few primitives the TypeScript layer uses.
// Policy (plans, voices, validation, errors users see) lives in TypeScript.
#include <napi.h>

#include "async_task.h"
#include "env_context.h"
#include "espeak_backend.h"
#include "flite_backend.h"
#include "onnx_binding.h"
#include "pool.h"
#include "stream.h"

namespace svc {
namespace {

std::string OptionalString(const Napi::Object& o, const char* key) {
  Napi::Value v = o.Get(key);
  return v.IsString() ? v.As<Napi::String>().Utf8Value() : std::string();
}

// init({ threads?, espeakDataPath? }) -> Promise<{ espeakSampleRate, poolThreads }>.
// Loads both engines once, off the main thread (espeak reads its data, flite pages in voices).
Napi::Value Init(const Napi::CallbackInfo& info) {
  Napi::Object options = info.Length() > 0 && info[0].IsObject() ? info[0].As<Napi::Object>() : Napi::Object::New(info.Env());
  const Napi::Value threads = options.Get("threads");
  const unsigned poolThreads = threads.IsNumber() ? threads.As<Napi::Number>().Uint32Value() : 0;
  WorkerPool::Instance(poolThreads);
  std::string dataPath = OptionalString(options, "espeakDataPath");
  return RunAsync(
      info.Env(),
      [dataPath] {
        const int rate = EspeakBackend::Instance(dataPath).SampleRate();
        FliteBackend::Instance();
        return rate;
      },
      [](Napi::Env e, int rate) {
        Napi::Object out = Napi::Object::New(e);
        out.Set("espeakSampleRate", rate);
        out.Set("poolThreads", WorkerPool::Instance().Size());
        return out;
      });
}

// phonemize(text, espeakVoice, ipa) -> Promise<string>
Napi::Value Phonemize(const Napi::CallbackInfo& info) {
  if (info.Length() < 3 || !info[0].IsString() || !info[1].IsString() || !info[2].IsBoolean())
    throw Napi::TypeError::New(info.Env(), "phonemize(text: string, voice: string, ipa: boolean)");
  std::string text = info[0].As<Napi::String>().Utf8Value();
  std::string voice = info[1].As<Napi::String>().Utf8Value();
  const bool ipa = info[2].As<Napi::Boolean>().Value();
  return RunAsync(
      info.Env(), [text, voice, ipa] { return EspeakBackend::Instance().Phonemize(text, voice, ipa); },
      [](Napi::Env e, const std::string& s) { return Napi::String::New(e, s); });
}

// counters() -> { activeTasks, liveStreams, poolThreads, queuedTasks }
Napi::Value Counters(const Napi::CallbackInfo& info) {
  Napi::Object out = Napi::Object::New(info.Env());
  out.Set("activeTasks", Napi::Number::New(info.Env(), static_cast<double>(EnvContext::activeTasks.load())));
  out.Set("liveStreams", Napi::Number::New(info.Env(), static_cast<double>(SynthStream::liveStreams.load())));
  out.Set("poolThreads", WorkerPool::Instance().Size());
  out.Set("queuedTasks", Napi::Number::New(info.Env(), static_cast<double>(WorkerPool::Instance().Queued())));
  return out;
}

Napi::Object InitModule(Napi::Env env, Napi::Object exports) {
  env.SetInstanceData(new std::shared_ptr<EnvContext>(EnvContext::Create(env)));
  exports.Set("init", Napi::Function::New(env, Init));
  exports.Set("phonemize", Napi::Function::New(env, Phonemize));
  exports.Set("counters", Napi::Function::New(env, Counters));
  exports.Set("SynthStream", SynthStream::Define(env));
  ExportNeural(env, exports);
  return exports;
}

}  // namespace

}  // namespace svc

static Napi::Object InitAddon(Napi::Env env, Napi::Object exports) { return svc::InitModule(env, exports); }

NODE_API_MODULE(svc_tts, InitAddon)
