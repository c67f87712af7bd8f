// The interface every synthesis backend implements: one piece of text (or of phonemes in the
// backend's own alphabet) in; 16-bit PCM at the backend's native rate out as the backend makes it,
// and word timings.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace svc {

struct VoiceParams {
  std::string voice;    // backend voice name: espeak "en+f3", flite "slt"
  double speed = 1.0;   // the voice's own rate: 2.0 speaks twice as fast
  double requestSpeed = 1.0;  // the request's `speed` (0.5..2), on top of the voice's
  double pitch = 1.0;   // multiplies the voice's base pitch
  std::string phonemizer;  // neural backends: the espeak-ng voice that reads the request's language

  // The rate the backend speaks at: the voice's, scaled by the request's.
  double Rate() const { return speed * requestSpeed; }
};

struct SpeakJob {
  std::string text;         // UTF-8 text, or phonemes when `phonemes` is set
  bool phonemes = false;
  std::string voiceOverride;  // espeak: read this piece with another language voice
  // The stream's listener has heard nothing yet: a backend that can make this piece's first audio
  // sooner at some cost (a neural vocoder's windows) should.
  bool awaited = false;
};

struct WordTiming {
  int32_t charStart = 0;  // code points into SpeakJob::text
  int64_t startSample = 0;
  int64_t endSample = -1;  // -1 until known
};

// Receives a piece's audio while the backend synthesises it.
class AudioSink {
 public:
  virtual ~AudioSink() = default;
  virtual void Start(int sampleRate) = 0;  // once, before any audio
  virtual void Audio(const int16_t* samples, size_t count) = 0;
  // Every word of the piece has been reported (before its audio ends): the reader need not wait
  // for the end of the piece to know that no later word shares the last one's text. Saying it
  // again changes nothing.
  virtual void WordsComplete() {}
  // The backend will be a while before its next audio: what it gave so far should reach the
  // reader now rather than wait to make up a full stretch.
  virtual void Flush() {}
};

class Backend {
 public:
  virtual ~Backend() = default;
  // Streams the piece's audio into `sink` and appends its word timings (samples at the backend's
  // rate, from the piece's start) to `words`. Returns false when `cancelled` stopped the work
  // early (the audio is then incomplete). Throws std::runtime_error on failure.
  virtual bool Speak(const SpeakJob& job, const VoiceParams& voice, const std::atomic<bool>& cancelled,
                     AudioSink& sink, std::vector<WordTiming>& words) = 0;
};

}  // namespace svc
