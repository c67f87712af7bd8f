// Errors of the native core carry a stable code, which reaches JavaScript as the error's `code`
// (binding/js_error.h); the message says what was wrong in words.
#pragma once

#include <exception>
#include <stdexcept>
#include <string>

namespace svc {

namespace code {
constexpr const char* kInvalidArgument = "ERR_SVC_INVALID_ARGUMENT";  // a value the native side refuses
constexpr const char* kInputTooLong = "ERR_SVC_INPUT_TOO_LONG";       // more than a backend survives
constexpr const char* kEspeakInit = "ERR_SVC_ESPEAK_INIT";            // espeak-ng could not start
constexpr const char* kSynthesis = "ERR_SVC_SYNTHESIS";               // a backend failed
constexpr const char* kOnnxLoad = "ERR_SVC_ONNX_LOAD";                // ONNX Runtime could not be opened
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

}  // namespace svc
