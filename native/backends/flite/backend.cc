#include "backends/flite/backend.h"

extern "C" {  // not every flite header guards itself for C++
#include <flite/cst_audio.h>
#include <flite/flite.h>
}

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <stdexcept>

#include "base/utf8.h"

// The voice registration functions are exported by the voice libraries but declared in no header.
extern "C" {
cst_voice* register_cmu_us_slt(const char* voxdir);
cst_voice* register_cmu_us_rms(const char* voxdir);
cst_voice* register_cmu_us_awb(const char* voxdir);
cst_voice* register_cmu_us_kal16(const char* voxdir);
}

namespace svc {
namespace {

// flite calls back with at least this many samples (64 ms at 16 kHz): the first audio of an
// utterance reaches the reader as soon as its vocoder has made that much.
constexpr int kStreamSamples = 1024;

std::map<std::string, cst_voice*>& Voices() {
  // Leaked: pool threads may still read it while exit() runs static destructors.
  static auto* voices = new std::map<std::string, cst_voice*>;
  return *voices;
}

// Appends the utterance's word timings: its segments' ends, set before its wave is made.
void AddWords(const cst_utterance* u, const SpeakJob& job, int rate, int64_t count, std::vector<WordTiming>& words) {
  for (cst_item* word = relation_head(utt_relation(u, "Word")); word; word = item_next(word)) {
    const float start = ffeature_float(word, "R:SylStructure.daughter1.daughter1.R:Segment.p.end");
    const float end = ffeature_float(word, "R:SylStructure.daughtern.daughtern.R:Segment.end");
    const int srcByte = ffeature_int(word, "R:Token.parent.src_start");
    WordTiming t;
    t.charStart = job.phonemes ? 0 : CodePointOffset(job.text, static_cast<size_t>(srcByte));
    t.startSample = std::min<int64_t>(count, std::llround(start * rate));
    t.endSample = std::min<int64_t>(count, std::llround(end * rate));  // kal16 cuts its final pause short
    words.push_back(t);
  }
}

// What flite's streaming callback needs; reached through the streaming info's userdata.
struct StreamTarget {
  const std::atomic<bool>* cancelled = nullptr;
  AudioSink* sink = nullptr;
  const SpeakJob* job = nullptr;
  const cst_utterance* utterance = nullptr;
  std::vector<WordTiming>* words = nullptr;
  int64_t samples = 0;
  bool started = false;
};

// flite's vocoder hands over each stretch of audio it has made: pass it on at once. Its first
// call also gives the words, timed before any audio was made, so each can go to the reader with
// its audio.
int OnAudio(const cst_wave* w, int start, int size, int, cst_audio_streaming_info* asi) {
  auto* target = static_cast<StreamTarget*>(asi->userdata);
  if (target->cancelled->load(std::memory_order_relaxed)) return CST_AUDIO_STREAM_STOP;
  if (!target->started) {
    target->sink->Start(w->sample_rate);
    target->started = true;
    AddWords(target->utterance, *target->job, w->sample_rate, w->num_samples, *target->words);
    target->sink->WordsComplete();
  }
  if (size > 0) target->sink->Audio(w->samples + start, static_cast<size_t>(size));
  target->samples += size;
  return CST_AUDIO_STREAM_CONT;
}

// flite reads ASCII only: every other byte would become a junk word. Offsets stay byte-aligned.
std::string AsciiOnly(const std::string& text) {
  std::string ascii = text;
  for (char& ch : ascii)
    if (static_cast<unsigned char>(ch) >= 0x80) ch = ' ';
  return ascii;
}

const char* Param(cst_voice* v, const char* name) { return get_param_string(v->features, name, nullptr); }

// Builds the Token relation with flite's own tokenizer, remembering each token's byte offset.
void AddTokens(cst_utterance* u, cst_voice* v, const std::string& text) {
  cst_tokenstream* ts = ts_open_string(text.c_str(), Param(v, "text_whitespace"), Param(v, "text_singlecharsymbols"),
                                       Param(v, "text_prepunctuation"), Param(v, "text_postpunctuation"));
  cst_relation* tokens = utt_relation_create(u, "Token");
  while (!ts_eof(ts)) {
    const char* name = ts_get(ts);
    if (name[0] == '\0') continue;
    const int pre = static_cast<int>(strlen(ts->prepunctuation));
    const int post = static_cast<int>(strlen(ts->postpunctuation));
    const int len = static_cast<int>(strlen(name));
    int start = ts->file_pos - (1 + len + pre + post);
    if (ts_eof(ts)) start += 1;
    cst_item* t = relation_append(tokens, nullptr);
    item_set_string(t, "name", name);
    item_set_string(t, "whitespace", ts->whitespace);
    item_set_string(t, "prepunctuation", ts->prepunctuation);
    item_set_string(t, "punc", ts->postpunctuation);
    item_set_int(t, "src_start", std::max(0, start + pre));
  }
  ts_close(ts);
}

void AddPhonemeToken(cst_utterance* u, const std::string& phones) {
  cst_relation* tokens = utt_relation_create(u, "Token");
  cst_item* t = relation_append(tokens, nullptr);
  item_set_string(t, "name", "phonemes");
  item_set_string(t, "phones", phones.c_str());
  item_set_int(t, "src_start", 0);
}

}  // namespace

FliteBackend& FliteBackend::Instance() {
  static FliteBackend* instance = new FliteBackend();  // leaked: outlives every worker
  return *instance;
}

FliteBackend::FliteBackend() {
  flite_init();
  auto& voices = Voices();
  voices["slt"] = register_cmu_us_slt(nullptr);
  voices["rms"] = register_cmu_us_rms(nullptr);
  voices["awb"] = register_cmu_us_awb(nullptr);
  voices["kal16"] = register_cmu_us_kal16(nullptr);
}

bool FliteBackend::Speak(const SpeakJob& job, const VoiceParams& params, const std::atomic<bool>& cancelled,
                         AudioSink& sink, std::vector<WordTiming>& words) {
  auto found = Voices().find(params.voice);
  if (found == Voices().end() || found->second == nullptr)
    throw std::runtime_error("flite has no voice named '" + params.voice + "'");
  cst_voice* v = found->second;

  cst_utterance* u = new_utterance();
  const float stretch = get_param_float(v->features, "duration_stretch", 1.0f);
  feat_set_float(u->features, "duration_stretch", static_cast<float>(stretch / params.Rate()));
  if (params.pitch != 1.0) feat_set_float(u->features, "f0_shift", static_cast<float>(params.pitch));

  StreamTarget target{&cancelled, &sink, &job, u, &words, 0, false};
  cst_audio_streaming_info* asi = new_audio_streaming_info();
  asi->min_buffsize = kStreamSamples;
  asi->asc = OnAudio;
  asi->userdata = &target;
  feat_set(u->features, "streaming_info", audio_streaming_info_val(asi));

  const std::string text = AsciiOnly(job.text);
  if (job.phonemes) AddPhonemeToken(u, job.text);
  else AddTokens(u, v, text);
  u = flite_do_synth(u, v, utt_synth_tokens);
  if (u == nullptr) throw std::runtime_error("flite synthesis failed");

  // The streamed audio adds up to the utterance's wave (NATIVE.md C4); hand over any rest.
  const cst_wave* w = utt_wave(u);
  const int rate = w ? w->sample_rate : 16000;
  const int count = w ? w->num_samples : 0;
  if (!target.started) {  // no audio was streamed: the words and audio come now
    sink.Start(rate);
    AddWords(u, job, rate, count, words);
    sink.WordsComplete();
  }
  if (!cancelled.load() && target.samples < count) sink.Audio(w->samples + target.samples, static_cast<size_t>(count - target.samples));
  delete_utterance(u);
  return !cancelled.load();
}

}  // namespace svc
