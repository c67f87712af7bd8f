// The core's errors as JavaScript sees them: an Error (a TypeError for an invalid argument) whose
// `code` is the NativeError's (base/errors.h), which lib/native.ts maps to a TtsError code.
#pragma once

#include <napi.h>

#include <exception>
#include <string>

#include "base/errors.h"

namespace svc {

// Main thread: the JS error with `code` set.
inline Napi::Error JsError(Napi::Env env, const char* errorCode, const std::string& message) {
  Napi::Error error = std::string(errorCode) == code::kInvalidArgument ? Napi::TypeError::New(env, message)
                                                                        : Napi::Error::New(env, message);
  error.Set("code", Napi::String::New(env, errorCode));
  return error;
}

// Main thread: runs `body`, which reads a call's arguments into the core's structs, and throws what
// it throws as a coded JS error. A JS exception (a throwing getter) propagates as it is; a core
// exception without a code of its own means the core refused an argument.
template <typename Body>
void ThrowingCoded(Napi::Env env, Body body) {
  try {
    body();
  } catch (const Napi::Error&) {
    throw;
  } catch (const NativeError& e) {
    throw JsError(env, e.Code(), e.what());
  } catch (const std::exception& e) {
    throw JsError(env, code::kInvalidArgument, e.what());
  }
}

}  // namespace svc
