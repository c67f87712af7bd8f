#include "binding/audio_encoder.h"

#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "binding/env_context.h"
#include "audio/encoder.h"
#include "base/errors.h"
#include "scheduler/pool.h"

namespace svc {

struct EncoderState {
  EncoderConfig config;
  std::unique_ptr<Encoder> encoder;  // made by the first call, on the pool; one call at a time
  bool busy = false;      // main thread: a call has not settled yet
  bool finished = false;  // main thread: finish() was called
};

namespace {

[[noreturn]] void Invalid(Napi::Env env, const std::string& message) {
  throw JsError(env, code::kInvalidArgument, "AudioEncoder: " + message);
}

int IntegerIn(Napi::Env env, const Napi::Object& o, const char* key, int min, int max, int fallback) {
  Napi::Value v = o.Get(key);
  if (v.IsUndefined()) return fallback;
  const double d = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : -1;
  if (!(d >= min && d <= max && d == static_cast<double>(static_cast<int>(d))))
    Invalid(env, std::string(key) + " must be an integer from " + std::to_string(min) + " to " + std::to_string(max));
  return static_cast<int>(d);
}

}  // namespace

Napi::Function AudioEncoderWrap::Define(Napi::Env env) {
  return DefineClass(env, "AudioEncoder",
                     {InstanceMethod<&AudioEncoderWrap::Encode>("encode"), InstanceMethod<&AudioEncoderWrap::Finish>("finish")});
}

// new AudioEncoder({ codec, sampleRate, bitsPerSample, bitRate?, headerSampleRate? }): validated in
// TypeScript; checked again here against what the libraries take, and copied into a plain struct.
AudioEncoderWrap::AudioEncoderWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<AudioEncoderWrap>(info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsObject()) Invalid(env, "needs a config object");
  Napi::Object options = info[0].As<Napi::Object>();
  state_ = std::make_shared<EncoderState>();
  EncoderConfig& config = state_->config;
  const Napi::Value codec = options.Get("codec");
  const std::string name = codec.IsString() ? codec.As<Napi::String>().Utf8Value() : "";
  if (name == "mp3") config.codec = Codec::Mp3;
  else if (name == "opus") config.codec = Codec::Opus;
  else if (name == "flac") config.codec = Codec::Flac;
  else Invalid(env, "codec must be 'mp3', 'opus' or 'flac'");
  config.sampleRate = IntegerIn(env, options, "sampleRate", 8000, 48000, 0);
  if (config.sampleRate == 0) Invalid(env, "sampleRate is required");
  config.bitsPerSample = IntegerIn(env, options, "bitsPerSample", 16, 24, 16);
  if (config.bitsPerSample != 16 && config.bitsPerSample != 24) Invalid(env, "bitsPerSample must be 16 or 24");
  config.bitRate = IntegerIn(env, options, "bitRate", 6000, 512000, 0);
  if (config.codec != Codec::Flac && config.bitRate == 0) Invalid(env, "bitRate is required for " + name);
  config.headerSampleRate = IntegerIn(env, options, "headerSampleRate", 8000, 48000, 0);
}

Napi::Value AudioEncoderWrap::Encode(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsBuffer()) Invalid(env, "encode(pcm: Buffer) takes float32 samples");
  auto buffer = info[0].As<Napi::Buffer<uint8_t>>();
  if (buffer.Length() % sizeof(float) != 0) Invalid(env, "encode(pcm): the length is not a whole number of float32 samples");
  auto samples = std::make_shared<std::vector<float>>(buffer.Length() / sizeof(float));
  std::memcpy(samples->data(), buffer.Data(), buffer.Length());
  return Run(env, std::move(samples), false);
}

Napi::Value AudioEncoderWrap::Finish(const Napi::CallbackInfo& info) {
  return Run(info.Env(), std::make_shared<std::vector<float>>(), true);
}

Napi::Value AudioEncoderWrap::Run(Napi::Env env, std::shared_ptr<std::vector<float>> samples, bool finish) {
  if (state_->finished) Invalid(env, "the stream is finished");
  if (state_->busy) Invalid(env, "one call at a time: the previous one has not settled");
  state_->busy = true;
  state_->finished = finish;
  std::shared_ptr<EnvContext> context = *env.GetInstanceData<std::shared_ptr<EnvContext>>();
  auto deferred = std::make_shared<Napi::Promise::Deferred>(Napi::Promise::Deferred::New(env));
  context->AddAwaiter(env);
  auto task = [context, deferred, state = state_, samples, finish] {
    auto out = std::make_shared<std::vector<uint8_t>>();
    const char* failureCode = nullptr;
    std::string failure;
    try {
      if (!state->encoder) state->encoder = CreateEncoder(state->config);
      state->encoder->Encode(samples->data(), samples->size(), *out);
      if (finish) state->encoder->Finish(*out);
    } catch (const std::exception& e) {
      failureCode = CodeOf(e);
      failure = e.what();
    }
    context->Post([context, deferred, state, out, failureCode, failure](Napi::Env e) {
      state->busy = false;  // settled: the next call may come
      context->RemoveAwaiter(e);
      if (failureCode != nullptr) deferred->Reject(JsError(e, failureCode, failure).Value());
      else deferred->Resolve(Napi::Buffer<uint8_t>::Copy(e, out->data(), out->size()));
    });
  };
  if (!context->Submit(task, WorkerPool::Instance(), true)) context->RemoveAwaiter(env);
  return deferred->Promise();
}

}  // namespace svc
