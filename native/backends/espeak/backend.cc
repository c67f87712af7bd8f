#include "backends/espeak/backend.h"

#include <espeak-ng/speak_lib.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <stdexcept>

#include "base/errors.h"
#include "base/utf8.h"

namespace svc {
namespace {

// What one espeak_Synth call needs in its callback; reached through the event's user_data.
struct SynthCollector {
  const std::atomic<bool>* cancelled = nullptr;
  AudioSink* sink = nullptr;
  std::vector<WordTiming>* words = nullptr;
  int64_t samples = 0;
  bool wordHasPhoneme = false;
  // 1-based like espeak's text positions: the last character that is not a space. A pause placed
  // after it ends the reading, so no word follows.
  int32_t lastTextPosition = 0;
};

// espeak-ng's pause phonemes: _ and _: (a clause's pause, and the one espeakENDPAUSE adds at the
// end), _! and the like; _^_ is a switch of language, not a pause.
bool IsPause(const char* phoneme) { return phoneme[0] == '\0' || (phoneme[0] == '_' && phoneme[1] != '^'); }

void CloseOpenWord(SynthCollector& c, int64_t sample) {
  auto& words = *c.words;
  if (!words.empty() && words.back().endSample < 0) words.back().endSample = sample;
}

int OnSynth(short* wav, int numSamples, espeak_EVENT* events) {
  auto* c = static_cast<SynthCollector*>(events ? events[0].user_data : nullptr);
  if (c == nullptr) return 0;  // phonemize-only runs discard audio
  for (espeak_EVENT* e = events; e->type != espeakEVENT_LIST_TERMINATED; ++e) {
    const int64_t sample = e->sample;
    switch (e->type) {
      case espeakEVENT_WORD:
        CloseOpenWord(*c, sample);
        if (e->text_position < 1) break;  // espeak's own end marker, not a word of the text
        c->words->push_back({e->text_position - 1, sample, -1});
        c->wordHasPhoneme = false;
        break;
      case espeakEVENT_PHONEME:
        if (IsPause(e->id.string)) {
          CloseOpenWord(*c, sample);  // a pause ends the word before it
          if (e->text_position > c->lastTextPosition) c->sink->WordsComplete();
        } else if (!c->wordHasPhoneme && !c->words->empty() && c->words->back().endSample < 0) {
          // WORD events can lead the word's first phoneme by ~50 ms; the phoneme is the true start.
          c->words->back().startSample = sample;
          c->wordHasPhoneme = true;
        }
        break;
      case espeakEVENT_END:
      case espeakEVENT_SENTENCE:
        CloseOpenWord(*c, sample);
        break;
      default:
        break;
    }
  }
  if (wav != nullptr && numSamples > 0) {
    c->sink->Audio(wav, static_cast<size_t>(numSamples));  // to the reader as it is made, not copied up
    c->samples += numSamples;
  }
  return c->cancelled->load(std::memory_order_relaxed) ? 1 : 0;
}

// espeak-ng accepts its data directory or the directory that contains it, and silently falls
// back to the system's data when neither holds it; a path that was asked for must hold it.
bool HoldsEspeakData(const std::filesystem::path& dir) {
  std::error_code ec;
  for (const char* file : {"phontab", "phonindex", "phondata"})
    if (!std::filesystem::is_regular_file(dir / file, ec)) return false;
  return std::filesystem::is_directory(dir / "voices", ec);
}

// The 1-based code point position of the last character that is not an ASCII space (0 if none).
int32_t LastNonSpacePosition(const std::string& utf8) {
  size_t end = utf8.size();
  while (end > 0 && std::isspace(static_cast<unsigned char>(utf8[end - 1]))) --end;
  return CodePointOffset(utf8, end);  // the code points before `end`: the last one's 1-based position
}

int EspeakPitch(double factor) {
  // espeak's pitch is 0..100 around 50; one octave up or down spans the range.
  const double p = 50.0 + 50.0 * std::log2(factor);
  return static_cast<int>(std::lround(std::fmin(100.0, std::fmax(0.0, p))));
}

}  // namespace

// Leaked: outlives every worker and the exit handlers that pool threads may race with.
std::atomic<EspeakBackend*> EspeakBackend::instance_{nullptr};

EspeakBackend& EspeakBackend::Initialise(const std::string& dataPath, size_t instances) {
  static std::mutex* initMutex = new std::mutex;
  EspeakBackend* backend = instance_.load();
  if (backend == nullptr) {
    std::lock_guard<std::mutex> lock(*initMutex);
    backend = instance_.load();
    if (backend == nullptr) {
      backend = new EspeakBackend(dataPath, instances);  // throws NativeError: a later call may try again
      instance_.store(backend);
    }
  }
  // espeak-ng is one per process: a second data path would silently be ignored.
  if (dataPath != backend->dataPath_) {
    throw NativeError(code::kEspeakInit, "espeak-ng already runs with " +
                                             (backend->dataPath_.empty() ? std::string("the system's data")
                                                                         : "data from '" + backend->dataPath_ + "'") +
                                             " in this process; every engine must use the same espeakDataPath");
  }
  return *backend;
}

EspeakBackend& EspeakBackend::Instance() {
  EspeakBackend* backend = instance_.load();
  if (backend == nullptr) throw NativeError(code::kInvalidArgument, "espeak-ng is not initialised: call init() first");
  return *backend;
}

EspeakBackend::EspeakBackend(const std::string& dataPath, size_t instances) : dataPath_(dataPath) {
  if (!dataPath.empty() && !HoldsEspeakData(dataPath) && !HoldsEspeakData(std::filesystem::path(dataPath) / "espeak-ng-data")) {
    throw NativeError(code::kEspeakInit, "espeakDataPath '" + dataPath +
                                             "' holds no espeak-ng data: it must be an espeak-ng-data directory "
                                             "(with phontab, phonindex, phondata and voices/) or the directory that "
                                             "contains one");
  }
  slots_.resize(std::clamp<size_t>(instances, 1, EspeakCopies()));
  for (size_t i = 0; i < slots_.size(); ++i) {
    const EspeakCopy& copy = GetEspeakCopy(i);
    sampleRate_ = copy.Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, dataPath.empty() ? nullptr : dataPath.c_str(),
                                  espeakINITIALIZE_PHONEME_EVENTS | espeakINITIALIZE_DONT_EXIT);
    if (sampleRate_ <= 0) {
      throw NativeError(code::kEspeakInit,
                        dataPath.empty() ? "espeak-ng could not load its data from the system's default location "
                                           "(is espeak-ng-data installed?)"
                                         : "espeak-ng could not load its data from '" + dataPath + "'");
    }
    copy.SetSynthCallback(OnSynth);
    slots_[i].copy = &copy;
    slots_[i].state = std::make_unique<EspeakState>(copy);
  }
}

EspeakBackend::Slot& EspeakBackend::Take(const std::string& voice) {
  std::unique_lock<std::mutex> lock(mutex_);
  freed_.wait(lock, [this] { return busy_ < slots_.size(); });
  Slot* taken = nullptr;
  for (Slot& slot : slots_) {
    if (slot.busy) continue;
    if (taken == nullptr || slot.currentVoice == voice) taken = &slot;
    if (slot.currentVoice == voice) break;  // loading a voice costs more than the text, often
  }
  taken->busy = true;
  ++busy_;
  if (busy_ > busyPeak_.load()) busyPeak_.store(busy_);
  return *taken;
}

void EspeakBackend::GiveBack(Slot& slot) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    slot.busy = false;
    --busy_;
  }
  freed_.notify_one();
}

void EspeakBackend::StartText(Slot& slot, const std::string& name) {
  slot.state->ResetRunningState();
  slot.copy->random->Seed();  // its breath noise, as a fresh process draws it
  // Loading a voice costs 4-6 ms; a voice already loaded is put back as it was loaded instead.
  if (name == slot.currentVoice && slot.state->RestoreLoadedVoice()) return;
  slot.currentVoice.clear();
  if (slot.copy->SetVoiceByName(name.c_str()) != EE_OK)
    throw std::runtime_error("espeak-ng has no voice named '" + name + "'");
  slot.state->VoiceLoaded();
  slot.currentVoice = name;
}

bool EspeakBackend::Speak(const SpeakJob& job, const VoiceParams& voice, const std::atomic<bool>& cancelled,
                          AudioSink& sink, std::vector<WordTiming>& words) {
  sink.Start(sampleRate_);
  SynthCollector collector{&cancelled, &sink, &words, 0, false, LastNonSpacePosition(job.text)};
  std::string name = voice.voice;
  if (!job.voiceOverride.empty()) {
    const auto plus = name.find('+');  // keep the variant (+f3) on the other language
    name = job.voiceOverride + (plus == std::string::npos ? "" : name.substr(plus));
  }
  std::string text = job.phonemes ? "[[" + job.text + "]]" : job.text;
  // espeakENDPAUSE, as espeak-ng's program: without it a chunk ends without its pause and its last
  // word is not lengthened before it, and sentences ran into each other (about 250 ms a sentence).
  unsigned flags = espeakCHARS_UTF8 | espeakENDPAUSE | (job.phonemes ? espeakPHONEMES : 0);

  Lease lease(*this, name);
  const EspeakCopy& espeak = *(*lease).copy;
  // Every piece starts from the state a fresh process has: its audio depends on nothing that
  // ran before it, in this request or another, nor on the copy it runs on.
  StartText(*lease, name);
  // Above 450 words a minute espeak-ng speeds up with libsonic; below 80 it reads at 80 (the stream stretches the rest).
  espeak.SetParameter(espeakRATE, static_cast<int>(std::lround(kEspeakDefaultRate * voice.Rate())), 0);
  espeak.SetParameter(espeakPITCH, EspeakPitch(voice.pitch), 0);
  espeak_ERROR err = espeak.Synth(text.c_str(), text.size() + 1, 0, POS_CHARACTER, 0, flags, nullptr, &collector);
  if (err != EE_OK) throw std::runtime_error("espeak-ng synthesis failed");
  CloseOpenWord(collector, collector.samples);
  return !cancelled.load();
}

std::string EspeakBackend::Phonemize(const std::string& text, const std::string& voiceName, bool ipa) {
  char* buffer = nullptr;
  size_t size = 0;
  FILE* trace = open_memstream(&buffer, &size);
  if (trace == nullptr) throw std::runtime_error("open_memstream failed");
  {
    Lease lease(*this, voiceName);
    const EspeakCopy& espeak = *(*lease).copy;
    try {
      StartText(*lease, voiceName);
    } catch (...) {
      fclose(trace);
      free(buffer);
      throw;
    }
    espeak.SetParameter(espeakRATE, 175, 0);
    espeak.SetPhonemeTrace(espeakPHONEMES_SHOW | (ipa ? espeakPHONEMES_IPA : 0), trace);
    espeak.Synth(text.c_str(), text.size() + 1, 0, POS_CHARACTER, 0, espeakCHARS_UTF8 | espeakPHONEMES, nullptr,
                 nullptr);
    espeak.SetPhonemeTrace(0, nullptr);
  }
  fclose(trace);
  std::string result;
  for (size_t i = 0; i < size; ++i) {
    const char ch = buffer[i];
    if (ch == '\n' || ch == '\r') {
      if (!result.empty() && result.back() != ' ') result.push_back(' ');
    } else {
      result.push_back(ch);
    }
  }
  free(buffer);
  while (!result.empty() && (result.back() == ' ')) result.pop_back();
  while (!result.empty() && result.front() == ' ') result.erase(result.begin());
  return result;
}

}  // namespace svc
