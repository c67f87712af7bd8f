// The native core on its own, without Node: the build makes this program beside the addon from the
// same core library (svc_tts_core), and test/native/core.test.ts runs each case in a process of its
// own. `svc_tts_core_test --list` names the cases; `svc_tts_core_test <case>...` runs them.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "audio/encoder.h"
#include "audio/pcm.h"
#include "audio/resampler.h"
#include "audio/voice_transform.h"
#include "backends/espeak/backend.h"
#include "backends/flite/backend.h"
#include "backends/input_limits.h"
#include "base/errors.h"
#include "scheduler/chunk.h"
#include "scheduler/pool.h"
#include "scheduler/speech_stream.h"

namespace svc {
namespace {

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

#define CHECK(condition)                                                                                 \
  do {                                                                                                   \
    if (!(condition)) throw Failure(std::string(__FILE__ ":") + std::to_string(__LINE__) + ": " #condition); \
  } while (false)

// The espeak-ng data the build copies beside the addon, and so beside this program.
std::string EspeakDataBesideProgram() {
  char path[PATH_MAX];
  const ssize_t length = readlink("/proc/self/exe", path, sizeof(path) - 1);
  CHECK(length > 0);
  const std::string program(path, static_cast<size_t>(length));
  return program.substr(0, program.rfind('/')) + "/espeak-ng-data";
}

SpeakJob Text(const std::string& text) {
  SpeakJob job;
  job.text = text;
  return job;
}

ChunkJob OnePieceChunk(const std::string& text) {
  ChunkJob chunk;
  PieceJob piece;
  piece.speak = Text(text);
  chunk.pieces.push_back(piece);
  return chunk;
}

std::vector<int16_t> S16(const std::vector<uint8_t>& bytes) {
  std::vector<int16_t> samples(bytes.size() / 2);
  std::memcpy(samples.data(), bytes.data(), samples.size() * 2);
  return samples;
}

// One chunk of text synthesised on this thread: its audio (s16) and words.
struct SpokenChunk {
  std::vector<int16_t> samples;
  std::vector<ChunkWord> words;
  size_t stretches = 0;  // as the backend handed them on
};

SpokenChunk SpeakChunk(Backend& backend, const std::string& voice, int rate, const std::string& text) {
  StreamConfig config;
  config.backend = &backend;
  config.voice.voice = voice;
  config.outputRate = rate;
  config.encoding = Encoding::PcmS16le;
  const ChunkJob job = OnePieceChunk(text);
  std::atomic<bool> cancelled{false};
  SpokenChunk out;
  std::vector<uint8_t> bytes;
  const AudioOut emit = [&](AudioStretch&& stretch) {
    bytes.insert(bytes.end(), stretch.audio.begin(), stretch.audio.end());
    out.words.insert(out.words.end(), stretch.words.begin(), stretch.words.end());
    ++out.stretches;
  };
  AudioStretch tail;
  CHECK(SynthesizeChunk(config, job, cancelled, emit, tail, false));
  emit(std::move(tail));
  out.samples = S16(bytes);
  return out;
}

// Speech: long enough, loud somewhere, and one word event per word, in order, inside the audio.
void CheckSpeech(const SpokenChunk& chunk, int rate, size_t words) {
  CHECK(chunk.samples.size() > static_cast<size_t>(rate) / 2);
  int peak = 0;
  for (int16_t s : chunk.samples) peak = std::max(peak, std::abs(static_cast<int>(s)));
  CHECK(peak > 3000);
  if (chunk.words.size() != words)
    throw Failure(std::to_string(chunk.words.size()) + " word events for " + std::to_string(words) + " words");
  for (size_t i = 0; i < chunk.words.size(); ++i) {
    const ChunkWord& w = chunk.words[i];
    CHECK(w.piece == 0);
    CHECK(w.startSample >= 0 && w.endSample > w.startSample);
    CHECK(w.endSample <= static_cast<int64_t>(chunk.samples.size()));
    if (i > 0) CHECK(w.charStart > chunk.words[i - 1].charStart && w.startSample >= chunk.words[i - 1].startSample);
  }
}

void NativeErrorKeepsItsCode() {
  try {
    throw NativeError(code::kInputTooLong, "too long");
  } catch (const std::exception& e) {
    CHECK(std::string(CodeOf(e)) == code::kInputTooLong);
    CHECK(std::string(e.what()) == "too long");
  }
  CHECK(std::string(CodeOf(std::runtime_error("no code"))) == code::kSynthesis);
}

// Waits until `count` reaches `target`.
class Latch {
 public:
  void Add() {
    std::lock_guard<std::mutex> lock(mutex_);
    ++count_;
    changed_.notify_all();
  }
  void WaitFor(int target) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return count_ >= target; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int count_ = 0;
};

void PoolRunsTasksFirstOnesAheadAndDropsAnOwnersQueuedOnes() {
  WorkerPool& pool = WorkerPool::Instance(2);
  CHECK(pool.Size() == 2);
  // Shared with the tasks, which may still be returning when this function does.
  struct Probe {
    Latch busy, releaseOne, releaseOther, done;
    std::mutex mutex;
    std::vector<std::string> order;
  };
  auto probe = std::make_shared<Probe>();
  static const int owner = 0, other = 0;
  // Both threads busy until released: what is submitted meanwhile waits in the queue.
  pool.Submit(&other, [probe] { probe->busy.Add(); probe->releaseOne.WaitFor(1); });
  pool.Submit(&other, [probe] { probe->busy.Add(); probe->releaseOther.WaitFor(1); });
  probe->busy.WaitFor(2);
  auto record = [probe](const std::string& name) {
    return [probe, name] {
      {
        std::lock_guard<std::mutex> lock(probe->mutex);
        probe->order.push_back(name);
      }
      probe->done.Add();
    };
  };
  static const int stream = 0;
  pool.Submit(&other, record("queued"));
  for (int i = 0; i < 3; ++i) pool.Submit(&owner, record("dropped"), false, i == 1 ? &stream : nullptr);
  pool.Submit(&other, record("first"), true, &stream);
  CHECK(pool.Queued() == 5);
  CHECK(pool.Drop(&owner, &stream).size() == 1);  // one stream's tasks: not another owner's with its tag
  CHECK(pool.Drop(&owner).size() == 2);
  CHECK(pool.Queued() == 2);
  // One thread free: it takes the queue in the pool's order.
  probe->releaseOne.Add();
  probe->done.WaitFor(2);
  probe->releaseOther.Add();
  std::lock_guard<std::mutex> lock(probe->mutex);
  CHECK((probe->order == std::vector<std::string>{"first", "queued"}));
}

void EspeakChunkSpeaksWithWordEvents() {
  EspeakBackend& espeak = EspeakBackend::Initialise(EspeakDataBesideProgram());
  const SpokenChunk chunk = SpeakChunk(espeak, "en-us", 22050, "Birch canoes slid over smooth wooden planks.");
  CheckSpeech(chunk, 22050, 7);
}

void FliteChunkSpeaksWithWordEvents() {
  const SpokenChunk chunk = SpeakChunk(FliteBackend::Instance(), "kal16", 16000, "Glue the sheet to the dark blue background.");
  CheckSpeech(chunk, 16000, 8);
}

StreamPlan FlitePlan(const std::vector<std::string>& texts) {
  StreamPlan plan;
  plan.config.backend = &FliteBackend::Instance();
  plan.config.voice.voice = "kal16";
  plan.config.outputRate = 16000;
  plan.config.encoding = Encoding::PcmS16le;
  plan.pool = &WorkerPool::Instance(2);
  for (const std::string& text : texts) plan.chunks.push_back(OnePieceChunk(text));
  return plan;
}

// Every read of a stream to its end, by a reader that waits to be woken whenever nothing is due.
std::vector<AudioPiece> ReadToTheEnd(StreamPlan plan) {
  // The reader's side of a wake, shared with the pool threads that wake it.
  struct Reader {
    std::mutex mutex;
    std::condition_variable woken;
    bool wake = false;
  };
  auto reader = std::make_shared<Reader>();
  static const int owner = 0;
  auto stream = std::make_shared<SpeechStream>(
      std::move(plan),
      [](std::function<void()> task, WorkerPool& pool, bool first, const void* tag) {
        pool.Submit(&owner, std::move(task), first, tag);
        return true;
      },
      [reader](std::shared_ptr<SpeechStream>) {
        std::lock_guard<std::mutex> lock(reader->mutex);
        reader->wake = true;
        reader->woken.notify_all();
        return true;
      });
  stream->Start();
  std::vector<AudioPiece> reads;
  for (;;) {
    std::optional<StreamRead> read = stream->Read();
    while (!read) {
      std::unique_lock<std::mutex> lock(reader->mutex);
      reader->woken.wait(lock, [&] { return reader->wake; });
      reader->wake = false;
      lock.unlock();
      read = stream->Resume();
    }
    CHECK(read->kind != StreamRead::Kind::Failure);
    if (read->kind == StreamRead::Kind::End) return reads;
    // One read's stretches joined, as the addon hands them to JavaScript.
    AudioPiece joined = std::move(read->pieces.front());
    for (size_t i = 1; i < read->pieces.size(); ++i) {
      AudioPiece& more = read->pieces[i];
      joined.stretch.audio.insert(joined.stretch.audio.end(), more.stretch.audio.begin(), more.stretch.audio.end());
      joined.stretch.samples += more.stretch.samples;
      joined.stretch.words.insert(joined.stretch.words.end(), more.stretch.words.begin(), more.stretch.words.end());
      joined.stretch.reached = more.stretch.reached;
      joined.last = more.last;
    }
    reads.push_back(std::move(joined));
  }
}

void SpeechStreamReadsChunksInOrderOffThePool() {
  const std::vector<std::string> texts = {"One.", "Two words.", "And then three."};
  // Each chunk alone, for what the stream must give in order.
  std::vector<size_t> expected;
  for (const std::string& text : texts)
    expected.push_back(SpeakChunk(FliteBackend::Instance(), "kal16", 16000, text).samples.size());
  std::vector<size_t> chunks(1, 0);
  for (const AudioPiece& piece : ReadToTheEnd(FlitePlan(texts))) {
    chunks.back() += static_cast<size_t>(piece.stretch.samples);
    if (piece.last) chunks.push_back(0);
  }
  chunks.pop_back();
  CHECK(chunks == expected);
}

// A backend far faster than real time hands a long chunk on in stretches of about a second, not in
// every stretch it makes; the first still goes at once, and nothing is lost or reordered.
void SpeechStreamJoinsAFastChunksStretches() {
  std::string text;
  for (int i = 0; i < 8; ++i) text += "the birch canoe slid on the smooth planks and ";
  text += "that was all.";
  const SpokenChunk alone = SpeakChunk(FliteBackend::Instance(), "kal16", 16000, text);
  const std::vector<AudioPiece> reads = ReadToTheEnd(FlitePlan({text}));
  std::vector<int16_t> samples;
  size_t words = 0;
  for (const AudioPiece& piece : reads) {
    const std::vector<int16_t> stretch = S16(piece.stretch.audio);
    samples.insert(samples.end(), stretch.begin(), stretch.end());
    words += piece.stretch.words.size();
  }
  CHECK(samples == alone.samples);
  CHECK(words == alone.words.size());
  CHECK(reads.back().last);
  const size_t seconds = alone.samples.size() / 16000;
  if (!(alone.stretches > 2 * seconds && reads.size() > 1 && reads.size() <= alone.stretches / 2))
    throw Failure(std::to_string(reads.size()) + " reads of " + std::to_string(alone.stretches) + " stretches, " +
                  std::to_string(seconds) + " s of audio");
}

// A reader that joins the whole audio gets each chunk in one read once it is made, or, where a
// chunk runs longer than the audio a stream may hold unread, in reads of at least that much.
void SpeechStreamHandsWholeChunksToAJoiningReader() {
  std::string longText;
  for (int i = 0; i < 8; ++i) longText += "the birch canoe slid on the smooth planks and ";
  longText += "that was all.";
  const std::vector<std::string> texts = {"One.", longText, "And then three."};
  StreamPlan plan = FlitePlan(texts);
  plan.wholeChunks = true;
  plan.aheadSeconds = 2;
  std::vector<std::vector<int64_t>> reads(1);
  std::vector<int16_t> samples;
  for (const AudioPiece& piece : ReadToTheEnd(std::move(plan))) {
    reads.back().push_back(piece.stretch.samples);
    const std::vector<int16_t> stretch = S16(piece.stretch.audio);
    samples.insert(samples.end(), stretch.begin(), stretch.end());
    if (piece.last) reads.emplace_back();
  }
  reads.pop_back();
  std::vector<int16_t> alone;
  for (const std::string& text : texts) {
    const SpokenChunk chunk = SpeakChunk(FliteBackend::Instance(), "kal16", 16000, text);
    alone.insert(alone.end(), chunk.samples.begin(), chunk.samples.end());
  }
  CHECK(samples == alone);
  CHECK(reads.size() == 3 && reads[0].size() == 1 && reads[2].size() == 1);
  CHECK(reads[1].size() > 1);  // about 20 s of audio, in reads of 2 s or more
  for (size_t i = 0; i + 1 < reads[1].size(); ++i) CHECK(reads[1][i] >= 2 * 16000);
}

void ResamplerGivesTheExactLength() {
  for (const auto& [in, out] : std::vector<std::pair<int, int>>{{22050, 44100}, {44100, 16000}, {24000, 22050}}) {
    PieceResampler resampler(in, out);
    std::vector<float> output;
    const std::vector<float> input(10007, 0.25f);
    resampler.Push(input.data(), 4000, output);
    resampler.Push(input.data() + 4000, input.size() - 4000, output);
    resampler.Finish(output);
    CHECK(output.size() == static_cast<size_t>(std::llround(10007.0 * out / in)));
    CHECK(std::fabs(output[output.size() / 2] - 0.25f) < 0.01f);  // the level passes through
  }
}

void PcmEncodingsGiveTheirBytes() {
  const float samples[] = {0.5f, -1.0f, 0.0f};
  std::vector<uint8_t> s16, mulaw, alaw, f32;
  Encode(samples, 3, Encoding::PcmS16le, s16);
  Encode(samples, 3, Encoding::PcmMulaw, mulaw);
  Encode(samples, 3, Encoding::PcmAlaw, alaw);
  Encode(samples, 3, Encoding::PcmF32le, f32);
  CHECK((s16 == std::vector<uint8_t>{0x00, 0x40, 0x00, 0x80, 0x00, 0x00}));
  CHECK(mulaw.size() == 3 && mulaw[2] == 0xFF);  // G.711 silence
  CHECK(alaw.size() == 3 && alaw[2] == 0xD5);
  CHECK(f32.size() == 12 && BytesPerSample(Encoding::PcmF32le) == 4);
}

// The s16 encoding takes eight samples at a time where it can: every sample, in every place of a
// run and in the tail past the last eight, gets the scalar rule's bytes (clamped, NaN to the
// top, rounded to nearest even).
void PcmS16MatchesTheScalarRuleEverywhere() {
  auto rule = [](float x) {
    float scaled = x * 32768.0f;
    if (!(scaled < 32767.0f)) scaled = 32767.0f;
    if (scaled < -32768.0f) scaled = -32768.0f;
    return static_cast<int16_t>(std::nearbyint(scaled));
  };
  std::vector<float> samples = {NAN, INFINITY, -INFINITY, 1.0f, -1.0f, 1.5f, -1.5f, 0.0f, -0.0f,
                                2.5f / 32768, 3.5f / 32768, -2.5f / 32768, -3.5f / 32768, 32766.5f / 32768, -32767.5f / 32768};
  for (int i = 0; i < 1000; ++i) samples.push_back(static_cast<float>(std::sin(i * 0.37)) * 1.2f);
  for (size_t from = 0; from < 9; ++from) {
    for (size_t count = 0; from + count <= samples.size(); count += count < 24 ? 1 : 97) {
      std::vector<uint8_t> bytes;
      Encode(samples.data() + from, count, Encoding::PcmS16le, bytes);
      CHECK(bytes.size() == 2 * count);
      for (size_t i = 0; i < count; ++i) {
        const uint16_t want = static_cast<uint16_t>(rule(samples[from + i]));
        CHECK(bytes[2 * i] == (want & 0xFF) && bytes[2 * i + 1] == (want >> 8));
      }
    }
  }
}

std::vector<uint8_t> EncodeTone(const EncoderConfig& config) {
  std::vector<float> tone(static_cast<size_t>(config.sampleRate));
  for (size_t i = 0; i < tone.size(); ++i) tone[i] = 0.5f * static_cast<float>(std::sin(i * 2 * M_PI * 440 / config.sampleRate));
  std::unique_ptr<Encoder> encoder = CreateEncoder(config);
  std::vector<uint8_t> bytes;
  encoder->Encode(tone.data(), tone.size(), bytes);
  encoder->Finish(bytes);
  return bytes;
}

bool StartsWith(const std::vector<uint8_t>& bytes, size_t at, const std::string& magic) {
  return bytes.size() >= at + magic.size() && std::memcmp(bytes.data() + at, magic.data(), magic.size()) == 0;
}

void EncodersWriteTheirFormatsMagic() {
  const std::vector<uint8_t> flac = EncodeTone({Codec::Flac, 16000, 16, 0, 0});
  CHECK(StartsWith(flac, 0, "fLaC"));
  const std::vector<uint8_t> opus = EncodeTone({Codec::Opus, 16000, 16, 32000, 0});
  CHECK(StartsWith(opus, 0, "OggS") && StartsWith(opus, 28, "OpusHead"));
  const std::vector<uint8_t> mp3 = EncodeTone({Codec::Mp3, 16000, 16, 32000, 0});
  CHECK(mp3.size() > 2 && mp3[0] == 0xFF && (mp3[1] & 0xE0) == 0xE0);  // a frame's sync word: no ID3 tag
  try {
    CreateEncoder({Codec::Opus, 22050, 16, 32000, 0});
    CHECK(false);
  } catch (const NativeError& e) {
    CHECK(std::string(e.Code()) == code::kInvalidArgument);
  }
}

void VoiceTransformKeepsTheStretchedLength() {
  std::vector<float> samples(16000, 0.1f);
  VoiceTransformParams params;
  params.pitchScale = 1.5;
  params.timeRatio = 1.25;
  ApplyVoiceTransform(params, 16000, samples);
  CHECK(samples.size() == 20000);
}

void InputLimitsRefuseRunsBackendsCannotRead() {
  CheckPieceFits(Text(std::string(128, 'a')), false, "piece");
  try {
    CheckPieceFits(Text(std::string(129, 'a')), false, "piece");
    CHECK(false);
  } catch (const NativeError& e) {
    CHECK(std::string(e.Code()) == code::kInputTooLong);
    CHECK(std::string(e.what()).rfind("piece.text has 129 bytes without a space", 0) == 0);
  }
  // flite reads ASCII only: other bytes split its runs.
  std::string mixed;
  for (int i = 0; i < 100; ++i) mixed += "ab\xC3\xA9";
  CheckPieceFits(Text(mixed), true, "piece");
}

struct Case {
  const char* name;
  void (*run)();
};

const Case kCases[] = {
    {"native-error-keeps-its-code", NativeErrorKeepsItsCode},
    {"pool-runs-tasks-first-ones-ahead-and-drops-an-owners-queued-ones", PoolRunsTasksFirstOnesAheadAndDropsAnOwnersQueuedOnes},
    {"espeak-chunk-speaks-with-word-events", EspeakChunkSpeaksWithWordEvents},
    {"flite-chunk-speaks-with-word-events", FliteChunkSpeaksWithWordEvents},
    {"speech-stream-reads-chunks-in-order-off-the-pool", SpeechStreamReadsChunksInOrderOffThePool},
    {"speech-stream-joins-a-fast-chunks-stretches", SpeechStreamJoinsAFastChunksStretches},
    {"speech-stream-hands-whole-chunks-to-a-joining-reader", SpeechStreamHandsWholeChunksToAJoiningReader},
    {"resampler-gives-the-exact-length", ResamplerGivesTheExactLength},
    {"pcm-encodings-give-their-bytes", PcmEncodingsGiveTheirBytes},
    {"pcm-s16-matches-the-scalar-rule-everywhere", PcmS16MatchesTheScalarRuleEverywhere},
    {"encoders-write-their-formats-magic", EncodersWriteTheirFormatsMagic},
    {"voice-transform-keeps-the-stretched-length", VoiceTransformKeepsTheStretchedLength},
    {"input-limits-refuse-runs-backends-cannot-read", InputLimitsRefuseRunsBackendsCannotRead},
};

}  // namespace
}  // namespace svc

int main(int argc, char** argv) {
  using svc::kCases;
  if (argc == 2 && std::strcmp(argv[1], "--list") == 0) {
    for (const auto& c : kCases) std::printf("%s\n", c.name);
    return 0;
  }
  int failed = 0, ran = 0;
  for (const auto& c : kCases) {
    const bool asked = argc == 1 || std::any_of(argv + 1, argv + argc, [&](const char* name) { return std::strcmp(name, c.name) == 0; });
    if (!asked) continue;
    ++ran;
    try {
      c.run();
      std::printf("ok %s\n", c.name);
    } catch (const std::exception& e) {
      ++failed;
      std::printf("not ok %s: %s\n", c.name, e.what());
    }
  }
  if (ran != (argc == 1 ? static_cast<int>(std::size(kCases)) : argc - 1)) {
    std::printf("unknown case among the arguments (--list names them)\n");
    return 2;
  }
  return failed == 0 ? 0 : 1;
}
