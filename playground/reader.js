// The spoken text, one element per word, lit as each word is heard. Word timestamps come from
// the service with the audio (milliseconds from the start of the context's audio); each timed
// word is matched to the next word of the text that reads the same, so markup the service does
// not speak (a <break/>) is skipped over instead of shifting every word after it.

/** How far ahead a timed word is looked for among the text's words before it is taken as the next one. */
const LOOKAHEAD = 8

const bare = (word) => word.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '')

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
      const wanted = bare(word)
      let index = this.#cursor
      for (let j = this.#cursor; j < Math.min(this.#words.length, this.#cursor + LOOKAHEAD); j++) {
        if (bare(this.#words[j].textContent) === wanted) {
          index = j
          break
        }
      }
      if (index >= this.#words.length) return
      this.#timed.push({ span: this.#words[index], word, startMs: starts[i], endMs: ends[i] })
      this.#cursor = index + 1
    })
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
