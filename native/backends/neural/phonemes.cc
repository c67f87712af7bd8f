#include "backends/neural/phonemes.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "backends/espeak/backend.h"
#include "base/utf8.h"

namespace svc {
namespace {

bool IsSpace(char32_t c) { return c == U' ' || c == U'\t' || c == U'\n' || c == U'\r' || c == 0xA0; }

bool IsClausePunctuation(char32_t c) {
  return c == U'.' || c == U'?' || c == U'!' || c == U',' || c == U':' || c == U';';
}

// Unicode letters and digits are what espeak reads; everything else around a word is punctuation.
bool IsWordCharacter(char32_t c) {
  if (c >= U'0' && c <= U'9') return true;
  if (c < 0x80) return (c >= U'a' && c <= U'z') || (c >= U'A' && c <= U'Z') || c == U'\'';
  return !(c >= 0x2000 && c <= 0x206F) && !(c >= 0x3000 && c <= 0x303F) && c != 0xAB && c != 0xBB && c != 0xBF &&
         c != 0xA1;
}

// The precomposed letters espeak-ng writes in IPA, decomposed as NFD would (Piper maps the parts).
const std::map<char32_t, std::u32string>& Decompositions() {
  static const std::map<char32_t, std::u32string> table = {
      {0xE7, U"c\u0327"}, {0xE3, U"a\u0303"}, {0xF5, U"o\u0303"}, {0x1EBD, U"e\u0303"}, {0x129, U"i\u0303"},
      {0x169, U"u\u0303"}, {0x1EF9, U"y\u0303"}, {0xF1, U"n\u0303"}, {0xE9, U"e\u0301"}, {0xE8, U"e\u0300"},
  };
  return table;
}

std::u32string Nfd(const std::u32string& ipa) {
  std::u32string out;
  for (char32_t c : ipa) {
    auto it = Decompositions().find(c);
    if (it == Decompositions().end()) out.push_back(c);
    else out += it->second;
  }
  return out;
}

// espeak marks a switch to another language's phonemes with "(en)": not phonemes.
std::u32string DropLanguageFlags(const std::u32string& ipa) {
  std::u32string out;
  bool inFlag = false;
  for (char32_t c : ipa) {
    if (c == U'(') inFlag = true;
    else if (c == U')') inFlag = false;
    else if (!inFlag) out.push_back(c);
  }
  return out;
}

std::vector<std::u32string> SplitSpaces(const std::u32string& text) {
  std::vector<std::u32string> words;
  std::u32string current;
  for (char32_t c : text) {
    if (IsSpace(c)) {
      if (!current.empty()) words.push_back(current);
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  if (!current.empty()) words.push_back(current);
  return words;
}

std::u32string ReadIpa(const std::u32string& text, const std::string& espeakVoice) {
  return DropLanguageFlags(DecodeUtf8(EspeakBackend::Instance().Phonemize(EncodeUtf8(text), espeakVoice, true)));
}

struct TextWord {
  int32_t charStart = 0;
  std::u32string core;       // what espeak reads
  char32_t punctuation = 0;  // the clause punctuation after it, if any
};

// Matches espeak's words to the text's where their counts differ: espeak runs words together
// ("on the" -> ɔnðə) or reads one as several ("1990"). A monotone alignment by length (each
// word's IPA read alone) groups one text word with up to 4 spoken words or the reverse; a
// spoken word shared by several text words is split in proportion, the later parts `joined`
// (no space before them), so the ids stay those of the whole reading, as Piper makes them.
void AlignSpoken(const std::vector<std::u32string>& spoken, const std::vector<size_t>& alone,
                 std::vector<PhonemizedWord>& out) {
  constexpr size_t kMaxGroup = 4;
  const size_t n = alone.size(), m = spoken.size();
  constexpr double kNone = 1e18;
  // cost[i][j]: text words [0, i) against spoken words [0, j); step[i][j]: the group that ends there.
  std::vector<std::vector<double>> cost(n + 1, std::vector<double>(m + 1, kNone));
  std::vector<std::vector<std::pair<size_t, size_t>>> step(n + 1, std::vector<std::pair<size_t, size_t>>(m + 1));
  cost[0][0] = 0;
  auto relax = [&](size_t i, size_t j, size_t texts, size_t spokens) {
    if (i + texts > n || j + spokens > m || cost[i][j] >= kNone) return;
    double textLength = 0, spokenLength = 0;
    for (size_t k = 0; k < texts; ++k) textLength += static_cast<double>(alone[i + k]);
    for (size_t k = 0; k < spokens; ++k) spokenLength += static_cast<double>(spoken[j + k].size());
    const double penalty = texts == 1 && spokens == 1 ? 0 : 1 + (texts == 0 || spokens == 0 ? 2 : 0);
    const double total = cost[i][j] + std::abs(textLength - spokenLength) + penalty;
    if (total < cost[i + texts][j + spokens]) {
      cost[i + texts][j + spokens] = total;
      step[i + texts][j + spokens] = {texts, spokens};
    }
  };
  for (size_t i = 0; i <= n; ++i) {
    for (size_t j = 0; j <= m; ++j) {
      relax(i, j, 1, 0);
      relax(i, j, 0, 1);
      for (size_t k = 1; k <= kMaxGroup; ++k) {
        relax(i, j, 1, k);
        if (k > 1) relax(i, j, k, 1);
      }
    }
  }
  for (size_t i = n, j = m; i > 0 || j > 0;) {
    const auto [texts, spokens] = step[i][j];
    i -= texts;
    j -= spokens;
    if (texts == 0) continue;  // a spoken word no text word claims: dropped
    if (texts == 1) {
      for (size_t k = 0; k < spokens; ++k) out[i].phonemes += (k > 0 ? U" " : U"") + spoken[j + k];
      continue;
    }
    const std::u32string& shared = spoken[j];
    size_t total = 0;
    for (size_t k = 0; k < texts; ++k) total += alone[i + k];
    size_t before = 0, from = 0;
    for (size_t k = 0; k < texts; ++k) {
      before += alone[i + k];
      const size_t to = k + 1 == texts ? shared.size() : std::max(from, total > 0 ? shared.size() * before / total : from);
      out[i + k].phonemes = shared.substr(from, to - from);
      out[i + k].joined = k > 0;
      from = to;
    }
  }
}

}  // namespace

std::vector<PhonemizedWord> PhonemizeWords(const std::string& text, const std::string& espeakVoice) {
  const std::u32string chars = DecodeUtf8(text);
  std::vector<TextWord> words;
  for (size_t i = 0; i < chars.size();) {
    while (i < chars.size() && IsSpace(chars[i])) ++i;
    const size_t start = i;
    while (i < chars.size() && !IsSpace(chars[i])) ++i;
    if (start == i) break;
    TextWord word;
    size_t first = start, last = i;
    while (first < last && !IsWordCharacter(chars[first])) ++first;
    while (last > first && !IsWordCharacter(chars[last - 1])) --last;
    for (size_t k = last; k < i; ++k)
      if (IsClausePunctuation(chars[k])) word.punctuation = chars[k];
    if (first == last) {  // punctuation alone ("—", "...") belongs to the word before it
      if (!words.empty() && word.punctuation != 0) words.back().punctuation = word.punctuation;
      continue;
    }
    word.charStart = static_cast<int32_t>(start);
    word.core = chars.substr(first, last - first);
    words.push_back(word);
  }
  if (words.empty()) return {};

  std::u32string joined;
  for (const TextWord& w : words) joined += (joined.empty() ? U"" : U" ") + w.core;
  const std::vector<std::u32string> spoken = SplitSpaces(ReadIpa(joined, espeakVoice));
  std::vector<PhonemizedWord> out(words.size());
  if (spoken.size() == words.size()) {
    for (size_t i = 0; i < words.size(); ++i) out[i].phonemes = spoken[i];
  } else {
    std::vector<size_t> alone;
    for (const TextWord& w : words) {
      size_t length = 0;
      for (const std::u32string& part : SplitSpaces(ReadIpa(w.core, espeakVoice))) length += part.size();
      alone.push_back(length);
    }
    AlignSpoken(spoken, alone, out);
  }
  for (size_t i = 0; i < words.size(); ++i) {
    out[i].charStart = words[i].charStart;
    out[i].phonemes = Nfd(out[i].phonemes);
    if (words[i].punctuation != 0) out[i].phonemes.push_back(words[i].punctuation);
  }
  return out;
}

std::vector<PhonemizedWord> SplitPhonemeWords(const std::string& ipa) {
  std::vector<PhonemizedWord> out;
  for (const std::u32string& word : SplitSpaces(DecodeUtf8(ipa))) out.push_back({0, Nfd(word)});
  return out;
}

}  // namespace svc
