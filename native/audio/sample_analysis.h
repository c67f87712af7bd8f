// Voice samples: decoding an uploaded recording (libsndfile: WAV, FLAC, Ogg, MP3 and more) and
// measuring its speech (aubio: YIN pitch, onsets, levels; LPC formants for vocal-tract length).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace svc {

// A sample the caller must reject, with the stable code the TypeScript layer reports.
class SampleError : public std::runtime_error {
 public:
  SampleError(const std::string& code, const std::string& message) : std::runtime_error(code + ": " + message) {}
};

struct DecodedAudio {
  int sampleRate = 0;
  std::vector<float> samples;  // mono
  std::string format;          // libsndfile's name of the container ("WAV (Microsoft)")
};

// Decodes an in-memory file of any libsndfile format, downmixed to mono, resampled to `rate`.
// Throws SampleError UNSUPPORTED_AUDIO for what it cannot read, SAMPLE_TOO_LONG beyond maxSeconds
// (checked from the header, before decoding).
DecodedAudio DecodeAudio(const uint8_t* bytes, size_t length, int rate, double maxSeconds);

struct SpeechMeasures {
  double durationSeconds = 0;
  double speechSeconds = 0;  // frames above the silence threshold
  double voicedSeconds = 0;  // frames with a confident pitch
  double pitchHz = 0;        // median f0 of voiced frames (0 if none)
  double pitchP10Hz = 0;
  double pitchP90Hz = 0;
  double formantSpacingHz = 0;  // median formant spacing; 1000 Hz is a 17.5 cm vocal tract
  double onsetsPerSecond = 0;   // onsets per second of speech (about syllables)
  double loudnessDb = -120;     // RMS of the speech frames, dBFS
};

// Measures mono speech at `rate` (16 kHz is what DecodeAudio is asked for).
SpeechMeasures MeasureSpeech(const std::vector<float>& samples, int rate);

}  // namespace svc
