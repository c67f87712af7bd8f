#include "binding/plan.h"

#include <string>

#include "backends/espeak/backend.h"
#include "backends/flite/backend.h"
#include "backends/input_limits.h"
#include "binding/model.h"

namespace svc {
namespace {

// What the native side accepts, whatever a VoiceStore or a caller hands it: values outside these
// make the backends spin, crash or allocate without bound.
constexpr double kMinSpeed = 0.25, kMaxSpeed = 4.0;  // espeak's rate spans 80..450 words/min around 175
constexpr double kMinRequestSpeed = 0.5, kMaxRequestSpeed = 2.0;  // the request's `speed` (lib/schemas.ts)
constexpr double kMinPitch = 0.25, kMaxPitch = 4.0;
constexpr double kMinTransformScale = 0.25, kMaxTransformScale = 4.0;  // two octaves either way
constexpr int64_t kMinRate = 8000, kMaxRate = 48000;
constexpr int64_t kMaxQueueCapacity = 64;
constexpr double kMaxAheadSeconds = 600;
constexpr double kMaxBreakMs = 60000;
constexpr size_t kMaxNameBytes = 256;

PieceJob ReadPiece(const JsArg& p) {
  PieceJob piece;
  const std::string kind = p.Field("kind").String(kMaxNameBytes);
  if (kind == "break") {
    piece.kind = PieceJob::Kind::Break;
    piece.breakMs = p.Field("ms").NumberOr(0, 0, kMaxBreakMs);
    return piece;
  }
  if (kind == "text") {
    piece.kind = PieceJob::Kind::Text;
    piece.speak.text = p.Field("text").String();
  } else if (kind == "phonemes") {
    piece.kind = PieceJob::Kind::Phonemes;
    piece.speak.phonemes = true;
    piece.speak.text = p.Field("phonemes").String();
  } else {
    p.Field("kind").Refuse("'" + kind + "' is not text, phonemes or break");
  }
  piece.speak.voiceOverride = p.Field("espeakVoice").StringOr("", kMaxNameBytes);
  return piece;
}

}  // namespace

std::vector<ChunkJob> ReadChunks(const JsArg& chunks, bool flite) {
  std::vector<ChunkJob> jobs;
  for (const JsArg& chunk : chunks.Elements()) {
    ChunkJob job;
    for (const JsArg& piece : chunk.Field("pieces").Elements()) {
      job.pieces.push_back(ReadPiece(piece));
      if (job.pieces.back().kind != PieceJob::Kind::Break) CheckPieceFits(job.pieces.back().speak, flite, piece.Path());
    }
    job.breakBefore = chunk.Field("breakBefore").BooleanOr(false);
    job.breakAfter = chunk.Field("breakAfter").BooleanOr(false);
    job.continued = chunk.Field("continued").BooleanOr(false);
    job.continues = chunk.Field("continues").BooleanOr(false);
    jobs.push_back(std::move(job));
  }
  return jobs;
}

bool SpokenByFlite(const StreamPlan& plan) { return plan.config.backend == &FliteBackend::Instance(); }

VoiceTransformParams ReadVoiceTransform(const JsArg& transform) {
  VoiceTransformParams params;
  params.pitchScale = transform.Field("pitchScale").Number(kMinTransformScale, kMaxTransformScale);
  params.formantScale = transform.Field("formantScale").Number(kMinTransformScale, kMaxTransformScale);
  return params;
}

StreamPlan ReadPlan(const JsArg& plan) {
  StreamPlan out;
  StreamConfig& config = out.config;
  const std::string backend = plan.Field("backend").String(kMaxNameBytes);
  if (backend == "espeak") config.backend = &EspeakBackend::Instance();
  else if (backend == "flite") config.backend = &FliteBackend::Instance();
  else if (backend == "neural") {
    std::shared_ptr<NeuralModel> model = NativeModel::Loaded(plan.Field("model"));
    config.backend = model.get();
    config.model = std::move(model);
    config.voice.phonemizer = plan.Field("phonemizer").StringOr("", kMaxNameBytes);
  } else plan.Field("backend").Refuse("'" + backend + "' is not espeak, flite or neural");
  out.pool = backend == "espeak" ? &WorkerPool::Espeak() : &WorkerPool::Instance();
  config.voice.voice = plan.Field("voice").String(kMaxNameBytes);
  config.voice.speed = plan.Field("speed").NumberOr(1.0, kMinSpeed, kMaxSpeed);
  config.voice.requestSpeed = plan.Field("requestSpeed").NumberOr(1.0, kMinRequestSpeed, kMaxRequestSpeed);
  config.voice.pitch = plan.Field("pitch").NumberOr(1.0, kMinPitch, kMaxPitch);
  // Voice-cloning hook: a cloned voice's transform (pitch and formant scale) for every piece.
  const JsArg transform = plan.Field("transform");
  if (transform.Present()) config.transform = ReadVoiceTransform(transform);
  // espeak-ng reads no slower than 80 words a minute: a slower rate stretches its audio the rest of the way.
  if (backend == "espeak") config.transform.timeRatio = EspeakStretch(config.voice.Rate());
  config.outputRate = static_cast<int>(plan.Field("sampleRate").IntegerOr(44100, kMinRate, kMaxRate));
  config.encoding = ParseEncoding(plan.Field("encoding").String(kMaxNameBytes));
  out.capacity = static_cast<size_t>(plan.Field("queueCapacity").IntegerOr(2, 1, kMaxQueueCapacity));
  out.aheadSeconds = plan.Field("aheadSeconds").NumberOr(5, 0, kMaxAheadSeconds);
  out.leading = plan.Field("leading").BooleanOr(false);
  out.open = plan.Field("open").BooleanOr(false);
  out.wholeChunks = plan.Field("wholeChunks").BooleanOr(false);
  out.chunks = ReadChunks(plan.Field("chunks"), backend == "flite");
  return out;
}

}  // namespace svc
