#include "binding/audio_encoder.h"

#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "audio/encoder.h"
#include "binding/addon_data.h"
#include "binding/js_arg.h"
#include "binding/js_error.h"
#include "scheduler/pool.h"

namespace svc {

struct EncoderState {
  EncoderConfig config;
  std::unique_ptr<Encoder> encoder;  // made by the first call, on the pool; one call at a time
  bool busy = false;      // main thread: a call has not settled yet
  bool finished = false;  // main thread: finish() was called
};

Napi::Function AudioEncoderWrap::Define(Napi::Env env) {
  return DefineClass(env, "AudioEncoder",
                     {InstanceMethod<&AudioEncoderWrap::Encode>("encode"), InstanceMethod<&AudioEncoderWrap::Finish>("finish")});
}

// new AudioEncoder({ codec, sampleRate, bitsPerSample, bitRate?, headerSampleRate? }): validated in
// TypeScript; checked again here against what the libraries take, and copied into a plain struct.
AudioEncoderWrap::AudioEncoderWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<AudioEncoderWrap>(info) {
  const JsArg options(info, "AudioEncoder", 0, "config");
  state_ = std::make_shared<EncoderState>();
  EncoderConfig& config = state_->config;
  const std::string name = options.Field("codec").String();
  if (name == "mp3") config.codec = Codec::Mp3;
  else if (name == "opus") config.codec = Codec::Opus;
  else if (name == "flac") config.codec = Codec::Flac;
  else options.Field("codec").Refuse("must be 'mp3', 'opus' or 'flac'");
  config.sampleRate = static_cast<int>(options.Field("sampleRate").Integer(8000, 48000));
  config.bitsPerSample = static_cast<int>(options.Field("bitsPerSample").IntegerOr(16, 16, 24));
  if (config.bitsPerSample != 16 && config.bitsPerSample != 24) options.Field("bitsPerSample").Refuse("must be 16 or 24");
  config.bitRate = static_cast<int>(options.Field("bitRate").IntegerOr(0, 6000, 512000));
  if (config.codec != Codec::Flac && config.bitRate == 0) options.Field("bitRate").Refuse("is required for " + name);
  config.headerSampleRate = static_cast<int>(options.Field("headerSampleRate").IntegerOr(0, 8000, 48000));
}

Napi::Value AudioEncoderWrap::Encode(const Napi::CallbackInfo& info) {
  const JsArg pcm(info, "AudioEncoder.encode", 0, "pcm");
  auto buffer = pcm.Buffer();
  if (buffer.Length() % sizeof(float) != 0) pcm.Refuse("is not a whole number of float32 samples");
  auto samples = std::make_shared<std::vector<float>>(buffer.Length() / sizeof(float));
  std::memcpy(samples->data(), buffer.Data(), buffer.Length());
  return Run(info.Env(), std::move(samples), false);
}

Napi::Value AudioEncoderWrap::Finish(const Napi::CallbackInfo& info) {
  return Run(info.Env(), std::make_shared<std::vector<float>>(), true);
}

Napi::Value AudioEncoderWrap::Run(Napi::Env env, std::shared_ptr<std::vector<float>> samples, bool finish) {
  if (state_->finished) throw JsError(env, code::kInvalidArgument, "AudioEncoder: the stream is finished");
  if (state_->busy) throw JsError(env, code::kInvalidArgument, "AudioEncoder: one call at a time: the previous one has not settled");
  state_->busy = true;
  state_->finished = finish;
  std::shared_ptr<EnvContext> context = AddonData::Of(env).context;
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
