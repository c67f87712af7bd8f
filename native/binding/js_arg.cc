#include "binding/js_arg.h"

#include <cmath>
#include <sstream>
#include <utility>

#include "binding/js_error.h"

namespace svc {
namespace {

std::string Describe(double d) {
  if (std::isnan(d)) return "NaN";
  std::ostringstream out;
  out << d;
  return out.str();
}

}  // namespace

JsArg::JsArg(const Napi::CallbackInfo& info, const char* call, size_t index, const char* name)
    : JsArg(info[index], call, name) {}

JsArg::JsArg(Napi::Value value, const char* call, std::string path)
    : value_(value), call_(call), path_(std::move(path)) {}

void JsArg::Refuse(const std::string& problem) const {
  throw JsError(value_.Env(), code::kInvalidArgument, std::string(call_) + ": " + path_ + " " + problem);
}

void JsArg::Require(bool is, const char* expected) const {
  if (!Present()) Refuse("is required");
  if (!is) Refuse(std::string("must be ") + expected);
}

JsArg JsArg::Field(const char* key) const {
  return JsArg(Object().Get(key), call_, path_ + "." + key);
}

std::vector<JsArg> JsArg::Elements() const {
  Require(value_.IsArray(), "an array");
  const auto array = value_.As<Napi::Array>();
  std::vector<JsArg> elements;
  elements.reserve(array.Length());
  for (uint32_t i = 0; i < array.Length(); ++i)
    elements.push_back(JsArg(array.Get(i), call_, path_ + "[" + std::to_string(i) + "]"));
  return elements;
}

std::string JsArg::String(size_t maxBytes) const {
  Require(value_.IsString(), "a string");
  std::string s = value_.As<Napi::String>().Utf8Value();
  if (s.size() > maxBytes) Refuse("is longer than " + std::to_string(maxBytes) + " bytes");
  return s;
}

double JsArg::Number(double min, double max) const {
  Require(value_.IsNumber(), "a number");
  const double d = value_.As<Napi::Number>().DoubleValue();
  if (std::isfinite(d) && d >= min && d <= max) return d;
  if (min == std::numeric_limits<double>::lowest() && max == std::numeric_limits<double>::max())
    Refuse("must be a finite number, got " + Describe(d));
  Refuse("must be a finite number from " + Describe(min) + " to " + Describe(max) + ", got " + Describe(d));
}

int64_t JsArg::Integer(int64_t min, int64_t max) const {
  Require(value_.IsNumber(), "an integer");
  const double d = value_.As<Napi::Number>().DoubleValue();
  if (!(d >= static_cast<double>(min) && d <= static_cast<double>(max) && d == std::floor(d)))
    Refuse("must be an integer from " + std::to_string(min) + " to " + std::to_string(max) + ", got " + Describe(d));
  return static_cast<int64_t>(d);
}

bool JsArg::Boolean() const {
  Require(value_.IsBoolean(), "a boolean");
  return value_.As<Napi::Boolean>().Value();
}

Napi::Object JsArg::Object() const {
  Require(value_.IsObject(), "an object");
  return value_.As<Napi::Object>();
}

Napi::Buffer<uint8_t> JsArg::Buffer() const {
  Require(value_.IsBuffer(), "a Buffer");
  return value_.As<Napi::Buffer<uint8_t>>();
}

Napi::TypedArray JsArg::TypedArray() const {
  Require(value_.IsTypedArray(), "a typed array");
  return value_.As<Napi::TypedArray>();
}

std::string JsArg::StringOr(const std::string& fallback, size_t maxBytes) const {
  return Present() ? String(maxBytes) : fallback;
}

double JsArg::NumberOr(double fallback, double min, double max) const {
  return Present() ? Number(min, max) : fallback;
}

int64_t JsArg::IntegerOr(int64_t fallback, int64_t min, int64_t max) const {
  return Present() ? Integer(min, max) : fallback;
}

bool JsArg::BooleanOr(bool fallback) const { return Present() ? Boolean() : fallback; }

}  // namespace svc
