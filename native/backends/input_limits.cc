#include "backends/input_limits.h"

#include <algorithm>
#include <cstddef>

#include "base/errors.h"

namespace svc {
namespace {

// The longest run of text without a space a backend is given. espeak-ng overflows a 160-byte
// word buffer spelling out dotted letters ("a.a.a...", "中.中...."): from about 168 bytes it
// aborts the process, whatever the letters; plain runs of 400 bytes are read. flite recurses
// about 128 bytes of stack per character of one token. (issue 7, cases 1 and 3)
constexpr size_t kMaxRunBytes = 128;
// One espeak-ng phoneme word ([[...]], '|' separators not counted): 160 bytes are read; from
// about 236 phonemes espeak-ng drops the word silently, from about 350 it crashes (issue 7, case 1).
constexpr size_t kMaxEspeakPhonemeWordBytes = 160;
// One flite phoneme string (its time and audio grow with it; nothing more than a few words is asked).
constexpr size_t kMaxFlitePhonemeBytes = 1024;

bool IsAsciiSpace(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// The longest run of bytes between separators; `isSeparator` decides what breaks a run.
template <typename IsSeparator>
size_t LongestRun(const std::string& text, IsSeparator isSeparator, bool (*counts)(unsigned char)) {
  size_t longest = 0, run = 0;
  for (unsigned char c : text) {
    if (isSeparator(c)) run = 0;
    else if (counts(c)) longest = std::max(longest, ++run);
  }
  return longest;
}

bool AnyByte(unsigned char) { return true; }
bool NotPhoneSeparator(unsigned char c) { return c != '|'; }

}  // namespace

void CheckPieceFits(const SpeakJob& piece, bool flite, const std::string& what) {
  const std::string& text = piece.text;
  if (!piece.phonemes) {
    // flite reads ASCII only: any other byte becomes a space.
    const size_t run = flite ? LongestRun(text, [](unsigned char c) { return IsAsciiSpace(c) || c >= 0x80; }, AnyByte)
                             : LongestRun(text, IsAsciiSpace, AnyByte);
    if (run > kMaxRunBytes) {
      throw NativeError(code::kInputTooLong, what + ".text has " + std::to_string(run) +
                                                 " bytes without a space; a backend reads at most " +
                                                 std::to_string(kMaxRunBytes));
    }
  } else {
    const size_t size = flite ? text.size() : LongestRun(text, IsAsciiSpace, NotPhoneSeparator);
    const size_t limit = flite ? kMaxFlitePhonemeBytes : kMaxEspeakPhonemeWordBytes;
    if (size > limit) {
      throw NativeError(code::kInputTooLong, what + ".phonemes " + (flite ? "has " : "has a word of ") +
                                                 std::to_string(size) + " bytes; the most is " + std::to_string(limit));
    }
  }
}

}  // namespace svc
