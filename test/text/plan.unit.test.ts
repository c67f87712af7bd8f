import { describe, expect, it } from 'vitest'
import { TtsError } from '../../lib/errors.js'
import { planSpeech, type Chunk, type SpeechPlan, type TextPiece } from '../../lib/text/index.js'

const en = { language: 'en', backend: 'espeak' } as const

/** The spoken text of each source word, read back through the spans: what the engine will do. */
function spokenWords(plan: SpeechPlan): string[] {
  const spoken = plan.words.map(() => [] as string[])
  for (const piece of plan.chunks.flatMap((chunk) => chunk.pieces)) {
    if (piece.kind === 'text') {
      const chars = Array.from(piece.text)
      for (const span of piece.spans) spoken[span.word]!.push(chars.slice(span.start, span.end).join(''))
    } else if (piece.kind === 'phonemes') {
      spoken[piece.word]!.push(`[[${piece.phonemes}]]`)
    }
  }
  return spoken.map((parts) => parts.join(' '))
}

function chunkTexts(chunks: Chunk[]): string[] {
  return chunks.map((chunk) =>
    chunk.pieces.map((piece) => (piece.kind === 'text' ? piece.text : piece.kind === 'break' ? `<${piece.ms}>` : `[[${piece.phonemes}]]`)).join(' '),
  )
}

describe('planSpeech', () => {
  it('keeps the transcript words, markup removed, and maps each to its whole spoken expansion', async () => {
    const transcript = "Pay $3.50 to <phonemes>ˈtʃiːz</phonemes> at <digits>4 1 5</digits><break time='300ms'/> now."
    const plan = await planSpeech(transcript, en)
    expect(plan.words.map((word) => word.text)).toEqual(['Pay', '$3.50', 'to', 'ˈtʃiːz', 'at', '4', '1', '5', 'now.'])
    for (const word of plan.words) expect(transcript.slice(word.start, word.end)).toBe(word.text)
    expect(spokenWords(plan)).toEqual(['Pay', '3 dollars and 50 cents', 'to', "[['tS|i:|z]]", 'at', '4', '1', '5', 'now.'])
    expect(plan.chunks.flatMap((chunk) => chunk.pieces).filter((piece) => piece.kind === 'break')).toEqual([{ kind: 'break', ms: 300 }])
  })

  it('counts span offsets in code points, not UTF-16 units', async () => {
    const plan = await planSpeech('𝄞 music 😀 here', en)
    const piece = plan.chunks[0]!.pieces[0] as TextPiece
    expect(piece.text).toBe('𝄞 music 😀 here')
    expect(piece.spans).toEqual([{ start: 2, end: 7, word: 0 }, { start: 10, end: 14, word: 1 }])
    expect(plan.words.map((word) => word.text)).toEqual(['music', 'here'])
  })

  it('adds up consecutive breaks and clamps the total', async () => {
    const plan = await planSpeech("a <break time='1s'/> <break time='500ms'/>b<break time='4s'/><break time='4s'/>c", en)
    expect(chunkTexts(plan.chunks).join(' | ')).toBe('a <1500> b <5000> c')
  })

  it('makes one chunk per sentence on flite, the first one included, and one per clause on espeak-ng', async () => {
    const text = 'Hi there, my friend. How are you today? I am fine; thanks.'
    expect(chunkTexts((await planSpeech(text, { language: 'en', backend: 'flite' })).chunks)).toEqual([
      'Hi there, my friend.',
      'How are you today?',
      'I am fine; thanks.',
    ])
    expect(chunkTexts((await planSpeech(text, en)).chunks)).toEqual(['Hi there,', 'my friend.', 'How are you today?', 'I am fine;', 'thanks.'])
  })

  it("on flite, starts a long first sentence with its first clause, and only the first sentence", async () => {
    const long = 'When a boat was late, the whole town knew it within the hour, and people drifted down.'
    const flite = { language: 'en', backend: 'flite' } as const
    expect(chunkTexts((await planSpeech(`${long} ${long}`, flite)).chunks)).toEqual([
      'When a boat was late,',
      'the whole town knew it within the hour, and people drifted down.',
      long,
    ])
    // A short first sentence stays whole.
    expect(chunkTexts((await planSpeech('Hi there, my friend. How are you?', flite)).chunks)).toEqual(['Hi there, my friend.', 'How are you?'])
    // Without a clause to cut at, the sentence stays whole: never a cut in mid-clause to start early.
    const noClause = 'The old lighthouse stood at the very end of a long spit of sand by the harbour.'
    expect(chunkTexts((await planSpeech(noClause, flite)).chunks)).toEqual([noClause])
  })

  it('never ends a sentence at an abbreviation', async () => {
    const plan = await planSpeech('Dr. Smith and the whole team went home early today. Bye.', en)
    expect(chunkTexts(plan.chunks)).toEqual(['Doctor Smith and the whole team went home early today.', 'Bye.'])
  })

  it('never cuts inside a digits tag, even where a long clause must be cut between words', async () => {
    const digits = Array.from({ length: 40 }, (_, i) => String(i % 10)).join(' ')
    const plan = await planSpeech(`${'word '.repeat(25)}<digits>${digits}</digits> ok ${'word '.repeat(25)}end.`, en)
    const texts = chunkTexts(plan.chunks)
    expect(texts.length).toBeGreaterThan(1)
    expect(texts.filter((text) => text.includes(digits))).toHaveLength(1)
  })

  it('splits a very long sentence at clause punctuation, keeping chunks near 200 characters', async () => {
    const clause = 'this clause has a handful of words in it'
    const transcript = `Start. ${Array.from({ length: 12 }, () => clause).join(', ')}.`
    const plan = await planSpeech(transcript, en)
    const later = chunkTexts(plan.chunks).slice(1)
    expect(later.length).toBeGreaterThan(2)
    for (const text of later) expect(text.length).toBeLessThanOrEqual(210)
    expect(later.join(' ')).toBe(`${Array.from({ length: 12 }, () => clause).join(', ')}.`)
    expect(plan.words).toHaveLength(1 + 12 * 9)
  })

  it('chunks whole clauses for a neural pack: up to 80 characters, up to 30 in the first sentence', async () => {
    const long = 'The keeper rose before dawn, climbed the spiral stairs, trimmed the wicks, polished the great lens, and wrote a few careful lines in the logbook before breakfast.'
    const transcript = `Sure, I can read that for you. ${long} Short one, too.`
    const neural = await planSpeech(transcript, { language: 'en', backend: 'neural' })
    expect(chunkTexts(neural.chunks)).toEqual([
      'Sure,', 'I can read that for you.',
      'The keeper rose before dawn, climbed the spiral stairs, trimmed the wicks,', 'polished the great lens,',
      'and wrote a few careful lines in the logbook before breakfast.', 'Short one, too.',
    ])
    expect(neural.chunks.some((chunk) => chunk.continues)).toBe(false)  // every cut is at a clause's end
    // A clause longer than the bound stays whole.
    const clause = 'a clause with no punctuation in it that runs on well past eighty characters of text'
    expect(chunkTexts((await planSpeech(`Hi. ${clause}, end.`, { language: 'en', backend: 'neural' })).chunks)).toEqual(['Hi.', `${clause},`, 'end.'])
    // flite keeps a sentence a chunk after its first.
    expect(chunkTexts((await planSpeech(transcript, { language: 'en', backend: 'flite' })).chunks)).toEqual(['Sure, I can read that for you.', long, 'Short one, too.'])
  })

  it('reads ASCII only for flite and converts IPA to CMU phones', async () => {
    const plan = await planSpeech('Café “déjà” vu — <phonemes>ˈtʃiːz</phonemes>', { language: 'en', backend: 'flite' })
    expect(chunkTexts(plan.chunks)).toEqual(['Cafe "deja" vu - [[ch iy1 z]]'])
    expect(plan.words.map((word) => word.text)).toEqual(['Café', '“déjà”', 'vu', 'ˈtʃiːz'])
  })

  it('reads Chinese as pinyin with the pinyin voice and Latin words with the English voice', async () => {
    const plan = await planSpeech('我用iPhone打电话给Tom，花了3.5元。', { language: 'zh', backend: 'espeak' })
    expect(plan.words.map((word) => word.text)).toEqual(['我', '用', 'iPhone', '打', '电', '话', '给', 'Tom', '花', '了', '3.5', '元'])
    const pieces = plan.chunks.flatMap((chunk) => chunk.pieces) as TextPiece[]
    expect(pieces.map((piece) => [piece.espeakVoice, piece.text])).toEqual([
      ['cmn-latn-pinyin', 'wo3 yong4'],
      ['en', 'iPhone'],
      ['cmn-latn-pinyin', 'da3 dian4 hua4 gei3'],
      ['en', 'Tom,'],
      ['cmn-latn-pinyin', 'hua1 le0 3 dian3 5 yuan2.'],
    ])
    expect(spokenWords(plan)[5]).toBe('hua4')
  })

  it('reads Japanese as kana from kuromoji, one source word per token', async () => {
    const plan = await planSpeech('今日は天気がいいので、公園に行きます。', { language: 'ja', backend: 'espeak' })
    expect(plan.words.map((word) => word.text)).toEqual(['今日', 'は', '天気', 'が', 'いい', 'ので', '公園', 'に', '行き', 'ます'])
    expect(chunkTexts(plan.chunks)).toEqual(['キョー ワ テンキ ガ イイ ノデ,', 'コーエン ニ イキ マス.'])
  })

  it('plans an empty or markup-only transcript', async () => {
    expect(await planSpeech('', en)).toEqual({ words: [], chunks: [] })
    expect(await planSpeech("<break time='1s'/>", en)).toEqual({ words: [], chunks: [{ pieces: [{ kind: 'break', ms: 1000 }] }] })
  })

  it.each([
    ['<phonemes>/həˈloʊ/</phonemes>', 'INVALID_PHONEMES'],
    ['<phonemes>HH AH0 L OW1</phonemes>', 'INVALID_PHONEMES'],
    ['<b>x</b>', 'INVALID_MARKUP'],
  ])('rejects %j with %s', async (transcript, code) => {
    await expect(planSpeech(transcript, en)).rejects.toMatchObject({ code, status: 400 })
  })

  it('rejects bad options with a TtsError', async () => {
    await expect(planSpeech('hi', { language: 'xx' as never, backend: 'espeak' })).rejects.toMatchObject({ code: 'INVALID_LANGUAGE' })
    await expect(planSpeech('hola', { language: 'es', backend: 'flite' })).rejects.toMatchObject({ code: 'INVALID_LANGUAGE' })
    await expect(planSpeech(42 as never, en)).rejects.toBeInstanceOf(TtsError)
  })
})

describe('planSpeech line breaks and control characters', () => {
  it('ends a sentence at a line break and blanks control characters', async () => {
    const plan = await planSpeech('First line here\nSecond\u0000 line', en)
    expect(chunkTexts(plan.chunks)).toEqual(['First line here', 'Second line'])
    expect(plan.words.map((word) => word.text)).toEqual(['First', 'line', 'here', 'Second', 'line'])
  })
})
