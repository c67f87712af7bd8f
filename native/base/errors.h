// Errors that cross the native boundary carry a stable `code` property, which lib/native.ts maps
// to a TtsError code; the message says what was wrong in words.
#pragma once

#include <napi.h>

#include <stdexcept>
#include <string>

namespace svc {

namespace code {
constexpr const char* kInvalidArgument = "ERR_SVC_INVALID_ARGUMENT";  // a value the native side refuses
constexpr const char* kInputTooLong = "ERR_SVC_INPUT_TOO_LONG";       // more than a backend survives
constexpr const char* kEspeakInit = "ERR_SVC_ESPEAK_INIT";            // espeak-ng could not start
constexpr const char* kSynthesis = "ERR_SVC_SYNTHESIS";               // a backend failed
}  // namespace code

// Thrown on any thread; carries its code to the main thread.
class NativeError : public std::runtime_error {
 public:
  NativeError(const char* errorCode, const std::string& message) : std::runtime_error(message), code_(errorCode) {}
  const char* Code() const noexcept { return code_; }

 private:
  const char* code_;
};

// The code of any exception: its own, or kSynthesis for one that has none.
inline const char* CodeOf(const std::exception& e) {
  const auto* coded = dynamic_cast<const NativeError*>(&e);
  return coded ? coded->Code() : code::kSynthesis;
}

// Main thread: the JS error (a TypeError for invalid arguments) with `code` set.
inline Napi::Error JsError(Napi::Env env, const char* errorCode, const std::string& message) {
  Napi::Error error = std::string(errorCode) == code::kInvalidArgument ? Napi::TypeError::New(env, message)
                                                                        : Napi::Error::New(env, message);
  error.Set("code", Napi::String::New(env, errorCode));
  return error;
}

}  // namespace svc
