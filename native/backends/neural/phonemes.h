// Text -> IPA phonemes word by word for the neural backends, through the engine's espeak-ng, so
// each spoken word keeps a link to where it sits in the piece's text (for word timestamps).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace svc {

struct PhonemizedWord {
  int32_t charStart = 0;    // code points into the piece's text
  std::u32string phonemes;  // IPA, NFD (every code point one phoneme), then the clause punctuation
  bool joined = false;      // espeak-ng ran it together with the word before: no space between them
};

// espeak-ng reads the words together (context-dependent pronunciation), and that reading is kept
// where its words do not line up one to one with the text's ("on the" read as one word, numbers):
// they are matched by length, a shared spoken word split among its text words.
// Piper keeps only . ? ! , : ; of the punctuation, after the word it follows.
std::vector<PhonemizedWord> PhonemizeWords(const std::string& text, const std::string& espeakVoice);

// The IPA of a <phonemes> override: its words, NFD, without a text position.
std::vector<PhonemizedWord> SplitPhonemeWords(const std::string& ipa);

}  // namespace svc
