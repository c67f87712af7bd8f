// ONNX Runtime inside the addon: opened with the first neural pack, one Ort::Env per process, the
// API version checked before any other ORT call, and sessions created on the device the user asked for.
#pragma once

// The C++ API is initialised by hand (OnnxEnv), from the library opened then: a library missing
// or without our API version is a clean error instead of a failed load or a null dereference.
#define ORT_API_MANUAL_INIT
#include <onnxruntime_cxx_api.h>

#include <memory>
#include <string>

#include "onnx/model_cache.h"

namespace svc {

enum class OnnxDevice { Auto, Cpu, Cuda };

// Throws std::invalid_argument for a name other than auto, cpu, cuda.
OnnxDevice ParseOnnxDevice(const std::string& name);

// The process's Env, created on first use (and leaked: it must outlive every session); the first
// call opens ONNX Runtime. Throws NativeError (code::kOnnxLoad) when the library beside the addon
// cannot be opened or does not offer ORT_API_VERSION.
Ort::Env& OnnxEnv();

// "1.29.0 (API 29)"; throws like OnnxEnv.
std::string OnnxVersion();

struct OnnxSessionOptions {
  std::string modelPath;
  std::string modelBytes;  // when set, the model itself (modelPath then only names it in errors)
  int intraOpThreads = 1;
  OnnxDevice device = OnnxDevice::Cpu;
  std::string cudaProviderPath;  // empty: libonnxruntime_providers_cuda.so beside the addon
  bool liftConvolutions = false;  // run 1-D convolutions as 2-D ones (onnx/conv_lift.h)
  ModelCache cache;               // where the lifted model file is kept between loads
  // Where set, ONNX Runtime writes the session's optimized graph there: on the CPU, its fused and
  // blocked-layout nodes, which a later load need not make again.
  std::string optimizedPath;
  bool optimized = false;  // the model is such a graph, from this ONNX Runtime on this kind of CPU
};

// What a graph ONNX Runtime optimized for the CPU depends on: its version, and the vector width
// that sets the blocked layout's block size. Part of the cache's names for such graphs.
std::string OptimizedGraphTag();

// Whether sessions made with `options` run on the CPU: device cpu, or auto where CUDA cannot run.
bool RunsOnCpu(const OnnxSessionOptions& options);

// How a model was loaded, for the pack's info.
struct OnnxLoadReport {
  std::string device;          // "cpu" or "cuda": where the session runs
  std::string fallbackReason;  // device 'auto' fell back to the CPU: why
  int liftedConvolutions = 0;
  std::string liftWhy;         // asked to lift and none was: why
  bool fromCache = false;      // the rewrites were read from the cache, not made
  std::string cacheWhy;        // what was made could not be cached: why
};

struct OnnxSession {
  std::unique_ptr<Ort::Session> session;
  OnnxLoadReport report;
};

// The file's bytes; empty when it cannot be read.
std::string ReadModelFile(const std::string& path);

// Loads a model (blocking: call it off the main thread). Errors are std::runtime_error whose
// message starts with DEVICE_UNAVAILABLE: (CUDA asked for and not usable) or MODEL_PACK_INVALID:.
// `made`, where given, receives the bytes the session was made from when they are not the file's
// (the lifted model, or modelBytes), for a cache to keep.
OnnxSession LoadOnnxSession(const OnnxSessionOptions& options, std::string* made = nullptr);

}  // namespace svc
