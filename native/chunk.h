// One planned chunk of speech -> encoded audio at the output rate, handed on as it is made, with
// word timings.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "audio.h"
#include "backend.h"
#include "voice_transform.h"

namespace svc {

struct PieceJob {
  enum class Kind { Text, Phonemes, Break } kind = Kind::Text;
  SpeakJob speak;   // Text and Phonemes
  double breakMs = 0;  // Break
};

struct ChunkJob {
  std::vector<PieceJob> pieces;
  // The planner says what the neighbours are (they may belong to another append of a session).
  bool breakBefore = false;  // the previous chunk ends with a break
  bool breakAfter = false;   // the next chunk starts with one
  bool continued = false;    // the previous chunk was cut mid-clause: speech runs on into this one
  bool continues = false;    // this chunk is cut mid-clause
};

struct StreamConfig {
  Backend* backend = nullptr;
  std::shared_ptr<Backend> model;  // a neural model: kept loaded while the stream runs
  VoiceParams voice;
  int outputRate = 44100;
  Encoding encoding = Encoding::PcmS16le;
  VoiceTransformParams transform;  // cloned voices: applied to each piece at the backend's rate
};

struct ChunkWord {
  int32_t piece = 0;
  int32_t charStart = 0;
  int64_t startSample = 0;  // at the output rate, from the start of the chunk
  int64_t endSample = 0;
};

// What a chunk reports once it is done: the end of its audio (the rest went out while it was
// made), its words and where its pieces start.
struct ChunkResult {
  std::vector<uint8_t> tail;
  int64_t tailSamples = 0;
  int64_t samples = 0;
  std::vector<ChunkWord> words;
  std::vector<int64_t> pieceStarts;  // output sample where each piece begins; one extra entry = end
};

// Receives the chunk's encoded audio while it is made, in order.
using AudioOut = std::function<void(std::vector<uint8_t>&& audio, int64_t samples)>;

// Returns false if cancelled part-way (the result is then to be dropped).
bool SynthesizeChunk(const StreamConfig& config, const ChunkJob& job, const std::atomic<bool>& cancelled,
                     const AudioOut& emit, ChunkResult& out);

}  // namespace svc
