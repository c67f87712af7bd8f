#include "onnx/runtime.h"

#include <dlfcn.h>
#include <unistd.h>
#include <malloc.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "base/errors.h"
#include "onnx/conv_lift.h"

namespace svc {
namespace {

// The first region of the shared CPU arena (see OnnxEnv): room for a long chunk's activations.
constexpr int kArenaFirstRegionBytes = 256 << 20;
// glibc's initial mmap threshold, held there (see OnnxEnv).
constexpr int kMallocMmapThresholdBytes = 128 << 10;

std::string AddonDirectory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&AddonDirectory), &info) == 0 || info.dli_fname == nullptr) return ".";
  const std::string file = info.dli_fname;
  const auto slash = file.rfind('/');
  return slash == std::string::npos ? "." : file.substr(0, slash);
}

// ONNX Runtime is opened with the first neural pack, not with the addon: a process that speaks
// only with the builtin backends never maps it (about 1.3 ms of every start). It sits beside the
// addon, as the build and prebuildify place it.
const OrtApiBase* ApiBase() {
  static const OrtApiBase* base = [] {
    const std::string path = AddonDirectory() + "/libonnxruntime.so.1";
    void* library = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
    if (library == nullptr) {
      const char* why = dlerror();
      throw NativeError(code::kOnnxLoad, "ONNX Runtime could not be loaded for the neural packs (" + path + "): " +
                                             (why ? why : "unknown reason") + "; reinstall svc-tts, or rebuild it");
    }
    using GetApiBase = const OrtApiBase* (*)();
    auto* get = reinterpret_cast<GetApiBase>(dlsym(library, "OrtGetApiBase"));
    if (get == nullptr) throw NativeError(code::kOnnxLoad, path + " is not ONNX Runtime: it has no OrtGetApiBase");
    return get();
  }();
  return base;
}

const OrtApi* CheckedApi() {
  static const OrtApi* api = [] {
    const OrtApi* found = ApiBase()->GetApi(ORT_API_VERSION);
    if (found != nullptr) Ort::InitApi(found);
    return found;
  }();
  if (api == nullptr) {
    throw NativeError(code::kOnnxLoad, std::string("ONNX Runtime ") + ApiBase()->GetVersionString() +
                                           " does not offer API version " + std::to_string(ORT_API_VERSION) +
                                           " (the addon was built against 1.29): ship the libonnxruntime.so.1 it was built with");
  }
  return api;
}

// ORT reports failures through exceptions; its own log lines (coloured, on stderr) add nothing.
void DiscardLog(void*, OrtLoggingLevel, const char*, const char*, const char*, const char*) {}

bool FileExists(const std::string& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

// Registers the CUDA plugin execution provider (once per process) and appends its devices to
// `options`. Returns an empty string on success, else why CUDA cannot run here.
std::string AppendCuda(Ort::SessionOptions& options, const std::string& providerPath) {
  static std::mutex mutex;
  static std::string registeredPath;
  static std::string registrationError;
  const std::string path = providerPath.empty() ? AddonDirectory() + "/libonnxruntime_providers_cuda.so" : providerPath;
  std::lock_guard<std::mutex> lock(mutex);
  if (registeredPath != path) {
    if (!FileExists(path)) {
      return "the CUDA execution provider library " + path +
             " is missing (provider: take libonnxruntime_providers_cuda.so from the npm package "
             "com.github.asus4.onnxruntime.linux-x64-gpu@0.4.9, ORT 1.29.0)";
    }
    try {
      OnnxEnv().RegisterExecutionProviderLibrary("cuda", path);
      registeredPath = path;
      registrationError.clear();
    } catch (const Ort::Exception& e) {
      registrationError = std::string("ONNX Runtime could not load the CUDA execution provider (library: CUDA 13 "
                                      "cuBLAS/cuRAND/cudart and cuDNN 9 must be on the loader path): ") + e.what();
      return registrationError;
    }
  }
  std::vector<Ort::ConstEpDevice> cuda;
  for (const Ort::ConstEpDevice& device : OnnxEnv().GetEpDevices()) {
    if (std::string(device.EpName()) == "CUDAExecutionProvider") cuda.push_back(device);
  }
  if (cuda.empty()) return "the CUDA execution provider found no GPU (driver: is libcuda.so.1 installed and a device visible?)";
  try {
    options.AppendExecutionProvider_V2(OnnxEnv(), cuda, std::unordered_map<std::string, std::string>{});
  } catch (const Ort::Exception& e) {
    return std::string("the CUDA execution provider refused the session options: ") + e.what();
  }
  return "";
}

Ort::SessionOptions BaseOptions(int threads) {
  Ort::SessionOptions options;
  options.SetIntraOpNumThreads(threads);
  options.SetInterOpNumThreads(1);
  options.SetGraphOptimizationLevel(GraphOptimizationLevel::ORT_ENABLE_ALL);
  // Spinning intra-op threads would burn the cores the other streams and the event loop need.
  options.AddConfigEntry("session.intra_op.allow_spinning", "0");
  // A memory pattern is planned per input shape and keeps an arena block of its own: with a new
  // length every chunk, a long-running service's memory grew with each new length. Without them
  // memory stays at the largest run's, at the same speed (bench/RESULTS.md, Neural packs).
  options.DisableMemPattern();
  options.AddConfigEntry("session.use_env_allocators", "1");  // the arena OnnxEnv() registers
  return options;
}

}  // namespace

OnnxDevice ParseOnnxDevice(const std::string& name) {
  if (name == "auto") return OnnxDevice::Auto;
  if (name == "cpu") return OnnxDevice::Cpu;
  if (name == "cuda") return OnnxDevice::Cuda;
  throw std::invalid_argument("device must be auto, cpu or cuda, not '" + name + "'");
}

Ort::Env& OnnxEnv() {
  CheckedApi();
  static Ort::Env* env = [] {
    auto* created = new Ort::Env(ORT_LOGGING_LEVEL_ERROR, "svc-tts", DiscardLog, nullptr);
    // Every session's CPU tensors come from one arena whose first region is large: grown by
    // doubling from small regions, it left freed blocks resident in old regions while a longer
    // chunk took a new one (a 50 s paragraph peaked at 375 MiB, 323-331 with this; same speed). The
    // region is reserved, not touched: only what the runs use becomes resident.
    Ort::ArenaCfg arena(0, 0, kArenaFirstRegionBytes, -1);
    created->CreateAndRegisterAllocator(Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault), arena);
#ifdef __GLIBC__
    // glibc raises its mmap threshold to the largest block freed (up to 32 MiB): after a model's
    // load, every transient buffer of a run (ORT's own, a chunk's audio) came from the heaps and
    // stayed resident there. Fixed at glibc's default, large blocks go back to the system when
    // freed (the paragraph's peak RSS 302 -> 291 MiB; bench/RESULTS.md, Neural packs).
    mallopt(M_MMAP_THRESHOLD, kMallocMmapThresholdBytes);
#endif
    return created;
  }();
  return *env;
}

std::string OnnxVersion() {
  CheckedApi();
  return std::string(ApiBase()->GetVersionString()) + " (API " + std::to_string(ORT_API_VERSION) + ")";
}

std::string ReadModelFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string OptimizedGraphTag() {
  CheckedApi();
  const char* width = __builtin_cpu_supports("avx512f") ? "avx512" : __builtin_cpu_supports("avx2") ? "avx2" : "sse";
  return std::string("ort") + ApiBase()->GetVersionString() + "-" + width;
}

bool RunsOnCpu(const OnnxSessionOptions& options) {
  if (options.device != OnnxDevice::Auto) return options.device == OnnxDevice::Cpu;
  OnnxEnv();
  Ort::SessionOptions unused;
  return !AppendCuda(unused, options.cudaProviderPath).empty();
}

OnnxSession LoadOnnxSession(const OnnxSessionOptions& request, std::string* made) {
  OnnxEnv();
  if (request.modelBytes.empty() && !FileExists(request.modelPath)) throw std::runtime_error("MODEL_PACK_INVALID: model file " + request.modelPath + " does not exist");
  OnnxSession result;
  Ort::SessionOptions options = BaseOptions(request.intraOpThreads);
  result.report.device = "cpu";
  if (request.device != OnnxDevice::Cpu) {
    const std::string why = AppendCuda(options, request.cudaProviderPath);
    if (why.empty()) {
      result.report.device = "cuda";
    } else if (request.device == OnnxDevice::Cuda) {
      throw std::runtime_error("DEVICE_UNAVAILABLE: device 'cuda' cannot run here: " + why);
    } else {
      result.report.fallbackReason = why;
      options = BaseOptions(request.intraOpThreads);
    }
  }
  if (request.optimized) options.SetGraphOptimizationLevel(GraphOptimizationLevel::ORT_DISABLE_ALL);
  std::string optimizedPath = request.optimizedPath;
  const bool cached = request.liftConvolutions && request.modelBytes.empty() && request.cache.Enabled();
  // Only a CPU session's optimized graph is kept: another device optimizes for itself.
  const bool keepOptimized = cached && result.report.device == "cpu";
  const std::string part = keepOptimized ? "whole.cpu-" + OptimizedGraphTag() : "whole";
  if (cached) {
    if (const std::optional<CacheNotes> notes = request.cache.ReadNotes(part)) {
      const int lifted = std::atoi(NoteOf(*notes, "lifted").c_str());
      try {
        const std::string path = keepOptimized || lifted > 0 ? request.cache.Path(part + ".onnx") : request.modelPath;
        Ort::SessionOptions again = options.Clone();
        if (keepOptimized) again.SetGraphOptimizationLevel(GraphOptimizationLevel::ORT_DISABLE_ALL);
        result.session = std::make_unique<Ort::Session>(OnnxEnv(), path.c_str(), again);
        result.report.liftedConvolutions = lifted;
        result.report.liftWhy = NoteOf(*notes, "why");
        result.report.fromCache = true;
        return result;
      } catch (const Ort::Exception&) {
        // A damaged entry (a full disk, an edit): made again below, and written over.
      }
    }
    if (keepOptimized) optimizedPath = request.cache.TemporaryPath(result.report.cacheWhy);
  }
  if (!optimizedPath.empty()) options.SetOptimizedModelFilePath(optimizedPath.c_str());
  // The entry for what was loaded: ONNX Runtime's optimized graph, or else the lifted model.
  const auto keep = [&](const std::string& lifted) {
    if (!cached) return;
    const CacheNotes notes{{"lifted", std::to_string(result.report.liftedConvolutions)}, {"why", result.report.liftWhy}};
    if (keepOptimized) {
      result.report.cacheWhy = optimizedPath.empty() ? result.report.cacheWhy : request.cache.Write({}, part, notes, {{part + ".onnx", optimizedPath}});
    } else {
      result.report.cacheWhy = lifted.empty() ? request.cache.Write({}, part, notes) : request.cache.Write({{part + ".onnx", lifted}}, part, notes);
    }
  };
  if (request.liftConvolutions) {
    ConvLift lift;
    if (request.modelBytes.empty()) lift = LiftConvolutions(ReadModelFile(request.modelPath));  // the file's bytes freed here
    else lift = LiftConvolutions(request.modelBytes);
    result.report.liftWhy = lift.why;
    if (lift.lifted > 0) {
      try {
        result.session = std::make_unique<Ort::Session>(OnnxEnv(), lift.model.data(), lift.model.size(), options);
        result.report.liftedConvolutions = lift.lifted;
        keep(lift.model);
        if (made) *made = std::move(lift.model);
        return result;
      } catch (const Ort::Exception& e) {
        // A rewrite ONNX Runtime refuses must not cost the user the model: load it as it is.
        result.report.liftWhy = std::string("the rewritten model would not load: ") + e.what();
      }
    }
  }
  try {
    result.session = request.modelBytes.empty()
                         ? std::make_unique<Ort::Session>(OnnxEnv(), request.modelPath.c_str(), options)
                         : std::make_unique<Ort::Session>(OnnxEnv(), request.modelBytes.data(), request.modelBytes.size(), options);
  } catch (const Ort::Exception& e) {
    if (!optimizedPath.empty() && cached) unlink(optimizedPath.c_str());
    throw std::runtime_error("MODEL_PACK_INVALID: ONNX Runtime cannot load " + request.modelPath + ": " + e.what());
  }
  // Nothing to lift is worth keeping too: the next load skips reading the model to find that out.
  keep("");
  if (made && !request.modelBytes.empty()) *made = request.modelBytes;
  return result;
}

}  // namespace svc
