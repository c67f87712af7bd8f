// The addon's entry: per-environment context, and the few primitives the TypeScript layer uses.
// Policy (plans, voices, validation, errors users see) lives in TypeScript.
#include <napi.h>

#include <thread>

#include "async_task.h"
#include "env_context.h"
#include "errors.h"
#include "espeak_backend.h"
#include "flite_backend.h"
#include "onnx_binding.h"
#include "pool.h"
#include "stream.h"

namespace svc {
namespace {

// init({ threads?, espeakDataPath? }) -> Promise<{ espeakSampleRate, poolThreads }>.
// Loads both engines once per process, on a thread of its own: not on the event loop (espeak
// reads its data, flite pages in voices), and not on the pool, where it would wait behind
// running synthesis.
Napi::Value Init(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  unsigned poolThreads = 0;
  std::string dataPath;
  if (info.Length() > 0 && !info[0].IsUndefined()) {
    if (!info[0].IsObject()) throw JsError(env, code::kInvalidArgument, "init(options) needs an options object");
    Napi::Object options = info[0].As<Napi::Object>();
    const Napi::Value threads = options.Get("threads");
    if (!threads.IsUndefined()) {
      const double n = threads.IsNumber() ? threads.As<Napi::Number>().DoubleValue() : -1;
      if (!(n >= 1 && n <= 64 && n == static_cast<double>(static_cast<unsigned>(n))))
        throw JsError(env, code::kInvalidArgument, "init: threads must be an integer from 1 to 64");
      poolThreads = static_cast<unsigned>(n);
    }
    const Napi::Value path = options.Get("espeakDataPath");
    if (!path.IsUndefined()) {
      if (!path.IsString()) throw JsError(env, code::kInvalidArgument, "init: espeakDataPath must be a string");
      dataPath = path.As<Napi::String>().Utf8Value();
      if (dataPath.empty() || dataPath.size() > 4096 || dataPath.find('\0') != std::string::npos)
        throw JsError(env, code::kInvalidArgument, "init: espeakDataPath must be a non-empty path");
    }
  }
  try {
    WorkerPool::Instance(poolThreads);
  } catch (const std::exception& e) {
    throw JsError(env, code::kSynthesis, e.what());
  }
  auto toJs = [](Napi::Env e, int rate) {
    Napi::Object out = Napi::Object::New(e);
    out.Set("espeakSampleRate", rate);
    out.Set("poolThreads", WorkerPool::Instance().Size());
    return out;
  };
  Settler<int, decltype(toJs)> settler(env, toJs);
  settler.Context()->AddAwaiter(env);
  settler.Context()->TaskStarted();
  try {
    std::thread([settler, dataPath] {
      settler.Run([&dataPath] {
        const int rate = EspeakBackend::Initialise(dataPath).SampleRate();
        FliteBackend::Instance();
        return rate;
      });
      settler.Context()->TaskFinished();
    }).detach();
  } catch (const std::exception& e) {
    settler.Context()->TaskFinished();
    settler.Context()->RemoveAwaiter(env);
    throw JsError(env, code::kSynthesis, std::string("init: could not start a thread: ") + e.what());
  }
  return settler.Promise();
}

// phonemize(text, espeakVoice, ipa) -> Promise<string>
Napi::Value Phonemize(const Napi::CallbackInfo& info) {
  if (info.Length() < 3 || !info[0].IsString() || !info[1].IsString() || !info[2].IsBoolean())
    throw JsError(info.Env(), code::kInvalidArgument, "phonemize(text: string, voice: string, ipa: boolean)");
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
