// The one way the addon reads what JavaScript hands it, with one strictness. The library validates
// first (lib/), so a refusal here is its bug or a caller going around it: a value of the wrong type,
// a required value that is missing, or one out of range is a TypeError with code
// ERR_SVC_INVALID_ARGUMENT that names it ("SynthStream: plan.chunks[2].pieces[0].text must be a
// string"). An optional value may be absent (undefined), and only then is its default used.
#pragma once

#include <napi.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace svc {

class JsArg {
 public:
  // Argument `index` of the call named `call` ("SynthStream", "AudioEncoder.encode"), named `name`.
  JsArg(const Napi::CallbackInfo& info, const char* call, size_t index, const char* name);

  // Where the value sits, from the argument's name: "plan.chunks[2].text".
  const std::string& Path() const { return path_; }
  bool Present() const { return !value_.IsUndefined(); }

  // The value must be an object; its field `key` (JS getters run).
  JsArg Field(const char* key) const;
  // The value must be an array; its elements.
  std::vector<JsArg> Elements() const;

  // Required values.
  std::string String(size_t maxBytes = std::numeric_limits<size_t>::max()) const;
  // A finite number in [min, max].
  double Number(double min = std::numeric_limits<double>::lowest(),
                double max = std::numeric_limits<double>::max()) const;
  int64_t Integer(int64_t min, int64_t max) const;
  bool Boolean() const;
  Napi::Object Object() const;
  Napi::Buffer<uint8_t> Buffer() const;
  Napi::TypedArray TypedArray() const;

  // Optional values: `fallback` when absent, otherwise read as the required ones are.
  std::string StringOr(const std::string& fallback, size_t maxBytes = std::numeric_limits<size_t>::max()) const;
  double NumberOr(double fallback, double min, double max) const;
  int64_t IntegerOr(int64_t fallback, int64_t min, int64_t max) const;
  bool BooleanOr(bool fallback) const;

  // Throws the TypeError for this value: "<call>: <path> <problem>".
  [[noreturn]] void Refuse(const std::string& problem) const;

 private:
  JsArg(Napi::Value value, const char* call, std::string path);
  // Refuses a missing value, or one of another type than `is` says ("a string").
  void Require(bool is, const char* expected) const;

  Napi::Value value_;
  const char* call_;
  std::string path_;
};

}  // namespace svc
