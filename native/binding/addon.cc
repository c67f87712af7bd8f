// The addon's entry: per-environment context, and the few primitives the TypeScript layer uses.
// Policy (plans, voices, validation, errors users see) lives in TypeScript.
#include <napi.h>

#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "audio/resampler.h"
#include "audio/sample_analysis.h"
#include "audio/voice_transform.h"
#include "backends/espeak/backend.h"
#include "backends/flite/backend.h"
#include "binding/addon_data.h"
#include "binding/async_task.h"
#include "binding/audio_encoder.h"
#include "binding/js_arg.h"
#include "binding/js_error.h"
#include "binding/model.h"
#include "binding/plan.h"
#include "binding/synth_stream.h"
#include "scheduler/pool.h"
#include "scheduler/speech_stream.h"

namespace svc {
namespace {

constexpr double kMaxSampleSeconds = 3600;
constexpr int64_t kMinPcmRate = 8000, kMaxPcmRate = 192000;

// init({ threads?, threadNice?, espeakDataPath? }) -> Promise<{ espeakSampleRate, poolThreads }>.
// Loads both engines once per process, on a thread of its own: not on the event loop (espeak
// reads its data, flite pages in voices), and not on the pool, where it would wait behind
// running synthesis.
Napi::Value Init(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  unsigned poolThreads = 0;
  int threadNice = 0;
  std::string dataPath;
  const JsArg options(info, "init", 0, "options");
  if (options.Present()) {
    poolThreads = static_cast<unsigned>(options.Field("threads").IntegerOr(0, 1, 64));
    threadNice = static_cast<int>(options.Field("threadNice").IntegerOr(0, 0, 19));
    const JsArg path = options.Field("espeakDataPath");
    dataPath = path.StringOr("", 4096);
    if (path.Present() && (dataPath.empty() || dataPath.find('\0') != std::string::npos))
      path.Refuse("must be a non-empty path");
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
        // As many espeak-ng copies as the pool has threads: each runs on a thread of its own.
        EspeakBackend& espeak = EspeakBackend::Initialise(dataPath, WorkerPool::Instance().Size());
        WorkerPool::Espeak(static_cast<unsigned>(espeak.Instances()));
        FliteBackend::Instance();
        return espeak.SampleRate();
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
  std::string text = JsArg(info, "phonemize", 0, "text").String();
  std::string voice = JsArg(info, "phonemize", 1, "espeakVoice").String();
  const bool ipa = JsArg(info, "phonemize", 2, "ipa").Boolean();
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
  auto file = JsArg(info, "analyseSample", 0, "file").Buffer();
  const double maxSeconds = JsArg(info, "analyseSample", 1, "maxSeconds").Number(0, kMaxSampleSeconds);
  auto bytes = std::make_shared<std::vector<uint8_t>>(file.Data(), file.Data() + file.Length());
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

std::shared_ptr<std::vector<float>> CopyFloats(const JsArg& value) {
  auto buffer = value.Buffer();
  auto samples = std::make_shared<std::vector<float>>(buffer.Length() / sizeof(float));
  std::memcpy(samples->data(), buffer.Data(), samples->size() * sizeof(float));
  return samples;
}

// analysePcm(samples: Buffer /* f32le mono */, sampleRate) -> Promise<measures>
Napi::Value AnalysePcm(const Napi::CallbackInfo& info) {
  auto samples = CopyFloats(JsArg(info, "analysePcm", 0, "samples"));
  const int rate = static_cast<int>(JsArg(info, "analysePcm", 1, "sampleRate").Integer(kMinPcmRate, kMaxPcmRate));
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
  auto samples = CopyFloats(JsArg(info, "transformVoice", 0, "samples"));
  const int rate = static_cast<int>(JsArg(info, "transformVoice", 1, "sampleRate").Integer(kMinPcmRate, kMaxPcmRate));
  const VoiceTransformParams params = ReadVoiceTransform(JsArg(info, "transformVoice", 2, "params"));
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

// releaseBuffer(buffer) -> boolean. Frees a Buffer's memory now instead of at a later collection:
// V8 counts every live ArrayBuffer's bytes towards starting a full (mark-compact) collection, so
// audio that was copied on or written out should not wait for one. Only a Buffer that spans an
// ArrayBuffer of its own is freed (it then reads as empty); a slice of a larger one, such as
// Node's pool for small Buffers, is left as it is. Whether it was freed.
Napi::Value ReleaseBuffer(const Napi::CallbackInfo& info) {
  const Napi::Buffer<uint8_t> buffer = JsArg(info, "releaseBuffer", 0, "buffer").Buffer();
  Napi::ArrayBuffer whole = buffer.ArrayBuffer();
  const bool own = buffer.ByteOffset() == 0 && buffer.ByteLength() == whole.ByteLength() && whole.ByteLength() > 0;
  if (own && !whole.IsDetached()) whole.Detach();
  return Napi::Boolean::New(info.Env(), own);
}

// counters() -> { activeTasks, externalBytes, liveStreams, poolThreads, queuedTasks, unreadAudioBytes,
//   espeakInstances, espeakBusyPeak }
Napi::Value Counters(const Napi::CallbackInfo& info) {
  Napi::Object out = Napi::Object::New(info.Env());
  EnvContext& context = *AddonData::Of(info.Env()).context;
  context.ReportExternal(info.Env());  // what is reported, once every change so far is
  out.Set("externalBytes", Napi::Number::New(info.Env(), static_cast<double>(context.ReportedExternal())));
  out.Set("activeTasks", Napi::Number::New(info.Env(), static_cast<double>(EnvContext::activeTasks.load())));
  out.Set("liveStreams", Napi::Number::New(info.Env(), static_cast<double>(SynthStream::liveStreams.load())));
  out.Set("unreadAudioBytes", Napi::Number::New(info.Env(), static_cast<double>(SpeechStream::unreadBytes.load())));
  out.Set("poolThreads", WorkerPool::Instance().Size());
  out.Set("queuedTasks", Napi::Number::New(info.Env(), static_cast<double>(WorkerPool::Instance().Queued())));
  EspeakBackend* espeak = EspeakBackend::Initialised();
  out.Set("espeakInstances", static_cast<double>(espeak ? espeak->Instances() : 0));
  out.Set("espeakBusyPeak", static_cast<double>(espeak ? espeak->BusyPeak() : 0));
  return out;
}

Napi::Object InitModule(Napi::Env env, Napi::Object exports) {
  auto* data = new AddonData{EnvContext::Create(env), Napi::Persistent(NativeModel::Define(env))};
  env.SetInstanceData(data);
  exports.Set("init", Napi::Function::New(env, Init));
  exports.Set("phonemize", Napi::Function::New(env, Phonemize));
  exports.Set("counters", Napi::Function::New(env, Counters));
  exports.Set("analyseSample", Napi::Function::New(env, AnalyseSample));
  exports.Set("analysePcm", Napi::Function::New(env, AnalysePcm));
  exports.Set("transformVoice", Napi::Function::New(env, TransformVoice));
  exports.Set("releaseBuffer", Napi::Function::New(env, ReleaseBuffer));
  exports.Set("SynthStream", SynthStream::Define(env));
  exports.Set("AudioEncoder", AudioEncoderWrap::Define(env));
  exports.Set("loadModel", Napi::Function::New(env, LoadModel));
  exports.Set("onnxRuntimeVersion", Napi::Function::New(env, OnnxRuntimeVersion));
  return exports;
}

}  // namespace

}  // namespace svc

static Napi::Object InitAddon(Napi::Env env, Napi::Object exports) { return svc::InitModule(env, exports); }

NODE_API_MODULE(svc_tts, InitAddon)
