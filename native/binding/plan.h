// A synthesis plan from JavaScript (lib/native.ts NativePlan), validated in TypeScript, checked
// again against what the backends survive, and copied into the scheduler's plain structs on the
// main thread, so pool threads never touch JS values.
#pragma once

#include <vector>

#include "audio/voice_transform.h"
#include "binding/js_arg.h"
#include "scheduler/speech_stream.h"

namespace svc {

// Both throw as JsArg does for a refused value, and NativeError (kInputTooLong) for a piece longer
// than its backend reads: call them inside ThrowingCoded (js_error.h).
StreamPlan ReadPlan(const JsArg& plan);
// Chunks for a stream whose backend is flite (`flite`) or another (their input limits differ).
std::vector<ChunkJob> ReadChunks(const JsArg& chunks, bool flite);
bool SpokenByFlite(const StreamPlan& plan);
// { pitchScale, formantScale }, each 0.25..4.
VoiceTransformParams ReadVoiceTransform(const JsArg& transform);

}  // namespace svc
