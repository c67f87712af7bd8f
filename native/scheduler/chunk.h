// One planned chunk of speech -> encoded audio at the output rate, handed on as it is made, with
// word timings as soon as each word's audio is out.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "audio/pcm.h"
#include "audio/voice_transform.h"
#include "backends/backend.h"

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
  int32_t charStart = 0;    // a phoneme piece has one word, spanning the piece, at 0
  int64_t startSample = 0;  // at the output rate, from the start of the chunk
  int64_t endSample = 0;
};

// A place in a chunk's text: a piece, and a code point in it.
struct TextPosition {
  int32_t piece = 0;
  int32_t charStart = 0;
  bool operator<(const TextPosition& o) const { return piece != o.piece ? piece < o.piece : charStart < o.charStart; }
};

// A stretch of a chunk's encoded audio, with the words it completes: a word goes to the reader
// with the stretch that holds the end of its audio, or with the first one after the backend
// reported that end. `reached`: every word of the text before it has gone to the reader, so the
// reader knows which of its own words will get no more.
struct AudioStretch {
  std::vector<uint8_t> audio;
  int64_t samples = 0;
  std::vector<ChunkWord> words;
  TextPosition reached;
};

// Receives the chunk's stretches while it is made, in order.
using AudioOut = std::function<void(AudioStretch&& stretch)>;

// Returns false if cancelled part-way (the result is then to be dropped). `tail` is the chunk's
// last stretch: what was not emitted yet, and the words still to come.
bool SynthesizeChunk(const StreamConfig& config, const ChunkJob& job, const std::atomic<bool>& cancelled,
                     const AudioOut& emit, AudioStretch& tail, bool awaited);

}  // namespace svc
