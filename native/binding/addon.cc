// The addon's entry: per-environment context, and the few primitives the TypeScript layer uses.
// Policy (plans, voices, validation, errors users see) lives in TypeScript.
#include <napi.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "binding/async_task.h"
#include "audio/resampler.h"
#include "binding/audio_encoder.h"
#include "binding/env_context.h"
#include "base/errors.h"
#include "backends/espeak/backend.h"
#include "backends/flite/backend.h"
#include "binding/neural.h"
#include "scheduler/pool.h"
#include "audio/sample_analysis.h"
#include "binding/synth_stream.h"
#include "audio/voice_transform.h"

namespace svc {
namespace {

// options[name]: an integer from `min` to `max` (a TypeError with a code otherwise), or 0 when absent.
int OptionalInteger(Napi::Env env, const Napi::Object& options, const char* name, int min, int max) {
  const Napi::Value value = options.Get(name);
  if (value.IsUndefined()) return 0;
  const double n = value.IsNumber() ? value.As<Napi::Number>().DoubleValue() : min - 1.0;
  if (!(n >= min && n <= max && n == std::floor(n)))
    throw JsError(env, code::kInvalidArgument, "init: " + std::string(name) + " must be an integer from " + std::to_string(min) + " to " + std::to_string(max));
  return static_cast<int>(n);
}

// init({ threads?, threadNice?, espeakDataPath? }) -> Promise<{ espeakSampleRate, poolThreads }>.
// Loads both engines once per process, on a thread of its own: not on the event loop (espeak
// reads its data, flite pages in voices), and not on the pool, where it would wait behind
// running synthesis.
Napi::Value Init(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  unsigned poolThreads = 0;
  int threadNice = 0;
  std::string dataPath;
  if (info.Length() > 0 && !info[0].IsUndefined()) {
    if (!info[0].IsObject()) throw JsError(env, code::kInvalidArgument, "init(options) needs an options object");
    Napi::Object options = info[0].As<Napi::Object>();
    poolThreads = static_cast<unsigned>(OptionalInteger(env, options, "threads", 1, 64));
    threadNice = OptionalInteger(env, options, "threadNice", 0, 19);
    const Napi::Value path = options.Get("espeakDataPath");
    if (!path.IsUndefined()) {
      if (!path.IsString()) throw JsError(env, code::kInvalidArgument, "init: espeakDataPath must be a string");
      dataPath = path.As<Napi::String>().Utf8Value();
      if (dataPath.empty() || dataPath.size() > 4096 || dataPath.find('\0') != std::string::npos)
        throw JsError(env, code::kInvalidArgument, "init: espeakDataPath must be a non-empty path");
    }
  }
  try {
    WorkerPool::Instance(poolThreads, threadNice);
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

Napi::Object MeasuresToJs(Napi::Env env, const SpeechMeasures& m) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("durationSeconds", m.durationSeconds);
  out.Set("speechSeconds", m.speechSeconds);
  out.Set("voicedSeconds", m.voicedSeconds);
  out.Set("pitchHz", m.pitchHz);
  out.Set("pitchP10Hz", m.pitchP10Hz);
  out.Set("pitchP90Hz", m.pitchP90Hz);
  out.Set("formantSpacingHz", m.formantSpacingHz);
  out.Set("onsetsPerSecond", m.onsetsPerSecond);
  out.Set("loudnessDb", m.loudnessDb);
  return out;
}

// analyseSample(file: Buffer, maxSeconds) -> Promise<measures & { format }>: decodes any audio file
// libsndfile reads and measures its speech at 16 kHz. Rejections start with a TtsError code.
Napi::Value AnalyseSample(const Napi::CallbackInfo& info) {
  if (info.Length() < 2 || !info[0].IsBuffer() || !info[1].IsNumber())
    throw JsError(info.Env(), code::kInvalidArgument, "analyseSample(file: Buffer, maxSeconds: number)");
  auto file = info[0].As<Napi::Buffer<uint8_t>>();
  auto bytes = std::make_shared<std::vector<uint8_t>>(file.Data(), file.Data() + file.Length());
  const double maxSeconds = info[1].As<Napi::Number>().DoubleValue();
  struct Result { SpeechMeasures measures; std::string format; };
  return RunAsync(
      info.Env(),
      [bytes, maxSeconds] {
        DecodedAudio audio = DecodeAudio(bytes->data(), bytes->size(), 16000, maxSeconds);
        return Result{MeasureSpeech(audio.samples, audio.sampleRate), audio.format};
      },
      [](Napi::Env e, const Result& r) {
        Napi::Object out = MeasuresToJs(e, r.measures);
        out.Set("format", r.format);
        return out;
      });
}

std::shared_ptr<std::vector<float>> CopyFloats(const Napi::Value& value) {
  auto buffer = value.As<Napi::Buffer<uint8_t>>();
  auto samples = std::make_shared<std::vector<float>>(buffer.Length() / sizeof(float));
  std::memcpy(samples->data(), buffer.Data(), samples->size() * sizeof(float));
  return samples;
}

// analysePcm(samples: Buffer /* f32le mono */, sampleRate) -> Promise<measures>
Napi::Value AnalysePcm(const Napi::CallbackInfo& info) {
  if (info.Length() < 2 || !info[0].IsBuffer() || !info[1].IsNumber())
    throw JsError(info.Env(), code::kInvalidArgument, "analysePcm(samples: Buffer, sampleRate: number)");
  auto samples = CopyFloats(info[0]);
  const int rate = info[1].As<Napi::Number>().Int32Value();
  if (rate < 8000 || rate > 192000) throw JsError(info.Env(), code::kInvalidArgument, "analysePcm: sampleRate must be 8000..192000");
  return RunAsync(
      info.Env(),
      [samples, rate] {
        if (rate == 16000) return MeasureSpeech(*samples, rate);
        return MeasureSpeech(Resample(*samples, rate, 16000), 16000);
      },
      [](Napi::Env e, const SpeechMeasures& m) { return MeasuresToJs(e, m); });
}

// transformVoice(samples: Buffer /* f32le mono */, sampleRate, { pitchScale, formantScale }) -> Promise<Buffer>
Napi::Value TransformVoice(const Napi::CallbackInfo& info) {
  if (info.Length() < 3 || !info[0].IsBuffer() || !info[1].IsNumber() || !info[2].IsObject())
    throw JsError(info.Env(), code::kInvalidArgument, "transformVoice(samples: Buffer, sampleRate: number, params: object)");
  auto samples = CopyFloats(info[0]);
  const int rate = info[1].As<Napi::Number>().Int32Value();
  if (rate < 8000 || rate > 192000) throw JsError(info.Env(), code::kInvalidArgument, "transformVoice: sampleRate must be 8000..192000");
  VoiceTransformParams params;
  try {
    params = ParseVoiceTransform(info[2].As<Napi::Object>());
  } catch (const NativeError& e) {
    throw JsError(info.Env(), e.Code(), e.what());
  }
  return RunAsync(
      info.Env(),
      [samples, rate, params] {
        ApplyVoiceTransform(params, rate, *samples);
        return samples;
      },
      [](Napi::Env e, const std::shared_ptr<std::vector<float>>& out) {
        return Napi::Buffer<uint8_t>::Copy(e, reinterpret_cast<const uint8_t*>(out->data()), out->size() * sizeof(float));
      });
}

// counters() -> { activeTasks, liveStreams, poolThreads, queuedTasks, unreadAudioBytes }
Napi::Value Counters(const Napi::CallbackInfo& info) {
  Napi::Object out = Napi::Object::New(info.Env());
  out.Set("activeTasks", Napi::Number::New(info.Env(), static_cast<double>(EnvContext::activeTasks.load())));
  out.Set("liveStreams", Napi::Number::New(info.Env(), static_cast<double>(SynthStream::liveStreams.load())));
  out.Set("unreadAudioBytes", Napi::Number::New(info.Env(), static_cast<double>(SynthStream::unreadBytes.load())));
  out.Set("poolThreads", WorkerPool::Instance().Size());
  out.Set("queuedTasks", Napi::Number::New(info.Env(), static_cast<double>(WorkerPool::Instance().Queued())));
  return out;
}

Napi::Object InitModule(Napi::Env env, Napi::Object exports) {
  env.SetInstanceData(new std::shared_ptr<EnvContext>(EnvContext::Create(env)));
  exports.Set("init", Napi::Function::New(env, Init));
  exports.Set("phonemize", Napi::Function::New(env, Phonemize));
  exports.Set("counters", Napi::Function::New(env, Counters));
  exports.Set("analyseSample", Napi::Function::New(env, AnalyseSample));
  exports.Set("analysePcm", Napi::Function::New(env, AnalysePcm));
  exports.Set("transformVoice", Napi::Function::New(env, TransformVoice));
  exports.Set("SynthStream", SynthStream::Define(env));
  exports.Set("AudioEncoder", AudioEncoderWrap::Define(env));
  ExportNeural(env, exports);
  return exports;
}

}  // namespace

}  // namespace svc

static Napi::Object InitAddon(Napi::Env env, Napi::Object exports) { return svc::InitModule(env, exports); }

NODE_API_MODULE(svc_tts, InitAddon)
