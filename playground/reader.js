// The spoken text, one element per word, lit as each word is heard. Word timestamps come from
// the service with the audio (milliseconds from the start of the context's audio); each timed
// word is matched to the next word of the text that reads the same, so markup the service does
// not speak (a <break/>) is skipped over instead of shifting every word after it. Text written
// without spaces (Chinese, Japanese) is split where the service's words fall.

/** How far ahead a timed word is looked for among the text's words before it is taken as the next one. */
const LOOKAHEAD = 8

const bare = (word) => word.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '')

/** Where in `text` its first `letters` letters and digits end, with the punctuation right after them. */
function endOfLetters(text, letters) {
  const chars = [...text]
  const isLetter = (char) => /[\p{L}\p{N}]/u.test(char)
  let seen = 0
  let end = 0
  while (end < chars.length && seen < letters) if (isLetter(chars[end++])) seen++
  while (end < chars.length && !isLetter(chars[end])) end++
  return chars.slice(0, end).join('').length
}

export class Reader {
  /** The words lit, in the order they were lit. */
  highlighted = []
  #element
  #words = []
  #timed = []
  #cursor = 0
  /** Index in #timed of the word lit now (-1: none yet). */
  #current = -1

  constructor(element) {
    this.#element = element
  }

  /** Shows `text` as words waiting to be spoken. */
  show(text) {
    this.#element.replaceChildren()
    this.#words = []
    this.#timed = []
    this.#cursor = 0
    this.#current = -1
    this.highlighted = []
    for (const part of text.split(/(\s+)/)) {
      if (!part) continue
      if (/^\s+$/.test(part)) {
        this.#element.append(part)
        continue
      }
      const span = document.createElement('span')
      span.className = 'word'
      span.textContent = part
      this.#element.append(span)
      this.#words.push(span)
    }
  }

  /** Adds an audio chunk's alignment (the SPEC's three parallel arrays). */
  align({ words, word_start_times_milliseconds: starts, word_end_times_milliseconds: ends }) {
    words.forEach((word, i) => {
      const index = this.#find(bare(word))
      if (index >= this.#words.length) return
      this.#timed.push({ span: this.#words[index], word, startMs: starts[i], endMs: ends[i] })
      this.#cursor = index + 1
    })
  }

  /** The index of the next text word that reads `wanted` (split off the front of a longer one), else the cursor's. */
  #find(wanted) {
    const end = Math.min(this.#words.length, this.#cursor + LOOKAHEAD)
    for (let j = this.#cursor; j < end; j++) {
      const text = bare(this.#words[j].textContent)
      if (text === wanted) return j
      if (wanted && text.startsWith(wanted)) {
        this.#split(j, endOfLetters(this.#words[j].textContent, [...wanted].length))
        return j
      }
    }
    return this.#cursor
  }

  /** Splits the text word at `index` in two at `at` (a position in its text). */
  #split(index, at) {
    const span = this.#words[index]
    const rest = document.createElement('span')
    rest.className = 'word'
    rest.textContent = span.textContent.slice(at)
    span.textContent = span.textContent.slice(0, at)
    span.after(rest)
    this.#words.splice(index + 1, 0, rest)
  }

  /** Lights the word heard at `positionMs` of the audio; the words before it are spoken (each logged once, in order). */
  update(positionMs) {
    let index = this.#current
    while (index + 1 < this.#timed.length && this.#timed[index + 1].startMs <= positionMs) index++
    if (index === this.#current) return
    for (let i = this.#current + 1; i <= index; i++) {
      this.#timed[i - 1]?.span.classList.replace('current', 'spoken')
      this.#timed[i].span.classList.add('current')
      this.highlighted.push(this.#timed[i].word)
    }
    this.#timed[index].span.scrollIntoView({ block: 'nearest' })
    this.#current = index
  }

  /** The end of the audio: the last word is spoken too. */
  finish() {
    this.#timed[this.#current]?.span.classList.replace('current', 'spoken')
  }
}
