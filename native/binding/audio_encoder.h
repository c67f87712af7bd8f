// AudioEncoder: the JS face of one compressed-audio encoder (audio/encoder.h). encode() and finish()
// run on the worker pool, ahead of queued synthesis (they are short, and audio waits on them);
// one call at a time, in the order the stream's PCM comes.
#pragma once

#include <napi.h>

#include <memory>

namespace svc {

struct EncoderState;

class AudioEncoderWrap : public Napi::ObjectWrap<AudioEncoderWrap> {
 public:
  static Napi::Function Define(Napi::Env env);
  explicit AudioEncoderWrap(const Napi::CallbackInfo& info);

 private:
  Napi::Value Encode(const Napi::CallbackInfo& info);
  Napi::Value Finish(const Napi::CallbackInfo& info);
  Napi::Value Run(Napi::Env env, std::shared_ptr<std::vector<float>> samples, bool finish);

  std::shared_ptr<EncoderState> state_;
};

}  // namespace svc
