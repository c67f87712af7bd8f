#include "audio/sample_analysis.h"

#include <aubio/aubio.h>
#include <sndfile.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>

#include "audio/resampler.h"

namespace svc {
namespace {

// libsndfile reads from memory through these callbacks.
struct MemoryFile {
  const uint8_t* bytes;
  sf_count_t length;
  sf_count_t position = 0;
};

sf_count_t MemLength(void* user) { return static_cast<MemoryFile*>(user)->length; }
sf_count_t MemTell(void* user) { return static_cast<MemoryFile*>(user)->position; }
sf_count_t MemSeek(sf_count_t offset, int whence, void* user) {
  auto* f = static_cast<MemoryFile*>(user);
  const sf_count_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? f->position : f->length;
  f->position = std::clamp<sf_count_t>(base + offset, 0, f->length);
  return f->position;
}
sf_count_t MemRead(void* out, sf_count_t count, void* user) {
  auto* f = static_cast<MemoryFile*>(user);
  const sf_count_t n = std::max<sf_count_t>(0, std::min(count, f->length - f->position));
  std::memcpy(out, f->bytes + f->position, static_cast<size_t>(n));
  f->position += n;
  return n;
}
sf_count_t MemWrite(const void*, sf_count_t, void*) { return 0; }

// aubio's vectors, freed on scope exit.
using Fvec = std::unique_ptr<fvec_t, decltype(&del_fvec)>;
Fvec NewFvec(uint_t length) { return Fvec(new_fvec(length), &del_fvec); }

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  const size_t k = std::min(values.size() - 1, static_cast<size_t>(p * (values.size() - 1) + 0.5));
  std::nth_element(values.begin(), values.begin() + k, values.end());
  return values[k];
}

constexpr int kHop = 160;             // 10 ms at 16 kHz
constexpr int kPitchWindow = 1024;    // 64 ms: two periods of a 32 Hz voice
constexpr int kLpcWindow = 400;       // 25 ms
constexpr int kLpcOrder = 18;         // 16 kHz: about 8 formants and the glottal/radiation slope
constexpr int kEnvelopeFft = 1024;
constexpr double kMinSpeechDb = -55;  // below this a frame is silence whatever the recording's level
constexpr double kSpeechBelowPeakDb = 35;

// Linear-prediction coefficients a[0..order] (a[0] = 1) of one frame by the autocorrelation
// method (Levinson-Durbin recursion). Returns false for a frame with no energy.
bool Lpc(const std::vector<float>& frame, int order, std::vector<double>& a) {
  std::vector<double> r(order + 1, 0.0);
  for (int lag = 0; lag <= order; ++lag)
    for (size_t i = lag; i < frame.size(); ++i) r[lag] += static_cast<double>(frame[i]) * frame[i - lag];
  if (r[0] <= 1e-9) return false;
  r[0] *= 1.0 + 1e-9;  // a touch of white noise keeps the recursion stable
  a.assign(order + 1, 0.0);
  a[0] = 1.0;
  double error = r[0];
  for (int i = 1; i <= order; ++i) {
    double acc = r[i];
    for (int j = 1; j < i; ++j) acc += a[j] * r[i - j];
    const double k = -acc / error;
    std::vector<double> previous(a);
    for (int j = 1; j < i; ++j) a[j] = previous[j] + k * previous[i - j];
    a[i] = k;
    error *= 1.0 - k * k;
    if (error <= 0) return false;
  }
  return true;
}

}  // namespace

DecodedAudio DecodeAudio(const uint8_t* bytes, size_t length, int rate, double maxSeconds) {
  MemoryFile file{bytes, static_cast<sf_count_t>(length)};
  SF_VIRTUAL_IO io{MemLength, MemSeek, MemRead, MemWrite, MemTell};
  SF_INFO info{};
  SNDFILE* sf = sf_open_virtual(&io, SFM_READ, &info, &file);
  if (sf == nullptr) throw SampleError("UNSUPPORTED_AUDIO", std::string("not a readable audio file (") + sf_strerror(nullptr) + ")");
  std::unique_ptr<SNDFILE, decltype(&sf_close)> guard(sf, &sf_close);
  if (info.channels < 1 || info.samplerate < 1000 || info.samplerate > 384000)
    throw SampleError("UNSUPPORTED_AUDIO", "the audio has no usable channels or sample rate");
  // MP3 and some Ogg streams report no length up front: the limit is checked again after decoding.
  const bool knownLength = info.frames > 0 && info.frames < SF_COUNT_MAX;
  if (knownLength && static_cast<double>(info.frames) / info.samplerate > maxSeconds + 0.5)
    throw SampleError("SAMPLE_TOO_LONG", "the sample is longer than the limit");

  SF_FORMAT_INFO formatInfo{};
  formatInfo.format = info.format & SF_FORMAT_TYPEMASK;
  sf_command(sf, SFC_GET_FORMAT_INFO, &formatInfo, sizeof(formatInfo));

  const auto maxFrames = static_cast<sf_count_t>((maxSeconds + 0.5) * info.samplerate);
  std::vector<float> interleaved(static_cast<size_t>(4096) * info.channels);
  std::vector<float> mono;
  for (;;) {
    const sf_count_t got = sf_readf_float(sf, interleaved.data(), 4096);
    if (got <= 0) break;
    for (sf_count_t i = 0; i < got; ++i) {
      float sum = 0;
      for (int c = 0; c < info.channels; ++c) sum += interleaved[static_cast<size_t>(i * info.channels + c)];
      mono.push_back(sum / static_cast<float>(info.channels));
    }
    if (static_cast<sf_count_t>(mono.size()) > maxFrames) throw SampleError("SAMPLE_TOO_LONG", "the sample is longer than the limit");
  }
  if (sf_error(sf) != SF_ERR_NO_ERROR) throw SampleError("UNSUPPORTED_AUDIO", std::string("the audio is damaged: ") + sf_strerror(sf));
  if (mono.empty()) throw SampleError("UNSUPPORTED_AUDIO", "the file holds no audio");
  if (knownLength && static_cast<sf_count_t>(mono.size()) < info.frames * 9 / 10)
    throw SampleError("UNSUPPORTED_AUDIO", "the file is truncated");
  for (float& s : mono) if (!std::isfinite(s)) s = 0;

  DecodedAudio out;
  out.sampleRate = rate;
  out.samples = info.samplerate == rate ? std::move(mono) : Resample(mono, info.samplerate, rate);
  out.format = formatInfo.name != nullptr ? formatInfo.name : "";
  return out;
}

SpeechMeasures MeasureSpeech(const std::vector<float>& samples, int rate) {
  SpeechMeasures m;
  m.durationSeconds = static_cast<double>(samples.size()) / rate;
  const size_t frames = samples.size() >= static_cast<size_t>(kPitchWindow) ? (samples.size() - kPitchWindow) / kHop + 1 : 0;
  if (frames == 0) return m;

  // Levels of each hop; speech is what stands out of the recording's noise floor.
  std::vector<double> levels(frames);
  {
    auto hop = NewFvec(kHop);
    for (size_t f = 0; f < frames; ++f) {
      std::copy_n(samples.data() + f * kHop + (kPitchWindow - kHop) / 2, kHop, hop->data);
      levels[f] = aubio_db_spl(hop.get());
    }
  }
  const double threshold = std::max(kMinSpeechDb, Percentile(levels, 0.95) - kSpeechBelowPeakDb);
  std::vector<bool> speech(frames);
  double energy = 0;
  size_t speechFrames = 0;
  for (size_t f = 0; f < frames; ++f) {
    speech[f] = levels[f] > threshold;
    if (!speech[f]) continue;
    ++speechFrames;
    energy += std::pow(10.0, levels[f] / 10.0);
  }
  m.speechSeconds = speechFrames * static_cast<double>(kHop) / rate;
  if (speechFrames == 0) return m;
  m.loudnessDb = 10.0 * std::log10(energy / speechFrames);

  // Pitch: aubio's YIN on every hop; a frame is voiced when YIN is confident and the level is speech.
  std::unique_ptr<aubio_pitch_t, decltype(&del_aubio_pitch)> pitch(
      new_aubio_pitch(const_cast<char*>("yinfast"), kPitchWindow, kHop, rate), &del_aubio_pitch);
  std::unique_ptr<aubio_onset_t, decltype(&del_aubio_onset)> onset(
      new_aubio_onset(const_cast<char*>("specflux"), 512, kHop, rate), &del_aubio_onset);
  if (!pitch || !onset) throw std::runtime_error("aubio could not be set up");
  aubio_pitch_set_unit(pitch.get(), const_cast<char*>("Hz"));
  aubio_pitch_set_tolerance(pitch.get(), 0.15f);
  aubio_pitch_set_silence(pitch.get(), static_cast<smpl_t>(threshold));
  aubio_onset_set_silence(onset.get(), static_cast<smpl_t>(threshold));
  aubio_onset_set_minioi_ms(onset.get(), 80);

  auto in = NewFvec(kHop), out = NewFvec(1);
  std::vector<double> f0s;
  std::vector<size_t> voicedFrames;
  size_t onsets = 0;
  for (size_t f = 0; f < frames; ++f) {
    std::copy_n(samples.data() + f * kHop, kHop, in->data);
    aubio_pitch_do(pitch.get(), in.get(), out.get());
    const double hz = out->data[0];
    // aubio's output lags its input by the window: frame f's estimate belongs to the hop centred there.
    const size_t centre = f >= (kPitchWindow / kHop) / 2 ? f - (kPitchWindow / kHop) / 2 : 0;
    if (speech[centre] && aubio_pitch_get_confidence(pitch.get()) > 0.8 && hz > 50 && hz < 600) {
      f0s.push_back(hz);
      voicedFrames.push_back(centre);
    }
    aubio_onset_do(onset.get(), in.get(), out.get());
    if (out->data[0] > 0 && speech[centre]) ++onsets;
  }
  m.voicedSeconds = f0s.size() * static_cast<double>(kHop) / rate;
  m.onsetsPerSecond = onsets / m.speechSeconds;
  if (f0s.empty()) return m;
  m.pitchHz = Percentile(f0s, 0.5);
  m.pitchP10Hz = Percentile(f0s, 0.1);
  m.pitchP90Hz = Percentile(f0s, 0.9);

  // Formants of voiced frames from the LPC envelope (its spectrum by aubio's FFT); their mean
  // spacing is the vocal tract's length: F_i = (2i - 1) * spacing / 2 for a uniform tube.
  std::unique_ptr<aubio_fft_t, decltype(&del_aubio_fft)> fft(new_aubio_fft(kEnvelopeFft), &del_aubio_fft);
  auto coefficients = NewFvec(kEnvelopeFft);
  std::unique_ptr<cvec_t, decltype(&del_cvec)> spectrum(new_cvec(kEnvelopeFft), &del_cvec);
  std::vector<float> frame(kLpcWindow);
  std::vector<double> a, spacings;
  const double binHz = static_cast<double>(rate) / kEnvelopeFft;
  for (size_t f : voicedFrames) {
    const size_t start = f * kHop + (kPitchWindow - kLpcWindow) / 2;
    if (start + kLpcWindow > samples.size()) continue;
    float previous = start > 0 ? samples[start - 1] : 0.0f;
    for (int i = 0; i < kLpcWindow; ++i) {  // pre-emphasis, Hamming window
      const float s = samples[start + i];
      frame[i] = static_cast<float>((s - 0.97 * previous) * (0.54 - 0.46 * std::cos(2 * M_PI * i / (kLpcWindow - 1))));
      previous = s;
    }
    if (!Lpc(frame, kLpcOrder, a)) continue;
    fvec_zeros(coefficients.get());
    for (int i = 0; i <= kLpcOrder; ++i) coefficients->data[i] = static_cast<smpl_t>(a[i]);
    aubio_fft_do(fft.get(), coefficients.get(), spectrum.get());
    // Peaks of 1/|A| are minima of |A|, refined by a parabola through the neighbouring bins.
    std::vector<double> formants;
    for (uint_t b = 2; b + 1 < spectrum->length && formants.size() < 4; ++b) {
      const double l = spectrum->norm[b - 1], c = spectrum->norm[b], r = spectrum->norm[b + 1];
      if (!(c < l && c <= r)) continue;
      const double la = std::log(l), ca = std::log(c), ra = std::log(r);
      const double denominator = la - 2 * ca + ra;
      const double offset = denominator > 0 ? 0.5 * (la - ra) / denominator : 0.0;
      const double hz = (b + offset) * binHz;
      if (hz >= 200 && hz <= 5000) formants.push_back(hz);
    }
    if (formants.size() < 4) continue;
    spacings.push_back((formants[0] + formants[1] + formants[2] + formants[3]) / 8.0);  // sum of (2i-1)/2 = 8
  }
  m.formantSpacingHz = Percentile(spacings, 0.5);
  return m;
}

}  // namespace svc
