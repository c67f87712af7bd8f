/**
 * SSML planned into the SPEC's plan: words named as written and placed in the transcript, each
 * element's pieces and renderings, marks, errors with their offsets, and the hostile documents
 * (entity bombs, deep nesting, very many elements, random fragments) ending quickly.
 */
import { describe, expect, it } from 'vitest'
import { TtsError } from '../../lib/errors.js'
import { planSpeech, SpeechPlanner, type PlanOptions, type SpeechPlan } from '../../lib/text/index.js'
import { random } from '../helpers/random.js'

const EN: PlanOptions = { language: 'en', backend: 'espeak', languages: ['en', 'es', 'fr', 'de', 'it', 'pt'] }

const texts = (plan: SpeechPlan) => plan.chunks.map((chunk) => chunk.pieces.map((piece) => (piece.kind === 'text' ? piece.text : piece.kind === 'break' ? `<${piece.ms}>` : `[${piece.phonemes}]`)).join('|'))

async function failure(transcript: string, opts: PlanOptions = EN): Promise<TtsError> {
  const error = await planSpeech(transcript, opts).then(() => undefined, (e: unknown) => e)
  expect(error).toBeInstanceOf(TtsError)
  return error as TtsError
}

describe('SSML documents', () => {
  it('name each word as written and place it in the transcript, references and line ends included', async () => {
    const transcript = '<speak>Tom &amp; Jerry&#x27;s\r\nshow <sub alias="World Wide Web">WWW</sub> end</speak>'
    const plan = await planSpeech(transcript, EN)
    expect(plan.words.map((word) => word.text)).toEqual(['Tom', 'Jerry\'s', 'show', 'WWW', 'end'])
    expect(plan.words.slice(0, 3).map((word) => transcript.slice(word.start, word.end))).toEqual(['Tom', 'Jerry&#x27;s', 'show'])
    const www = plan.words[3]!
    expect(transcript.slice(www.start, www.end)).toBe('<sub alias="World Wide Web">WWW</sub>')
    expect(texts(plan)).toEqual(["Tom & Jerry's", 'show World Wide Web end'])  // a line end ends a sentence
  })

  it('map say-as, phoneme and break onto text, phonemes, digits and silence', async () => {
    const plan = await planSpeech(
      '<speak><say-as interpret-as="ordinal">3</say-as> <say-as interpret-as="telephone">415-555</say-as> ' +
        '<say-as interpret-as="digits">12</say-as><break strength="strong"/><phoneme ph="ˈhɛloʊ">hi</phoneme> ' +
        '<say-as interpret-as="spell-out">ok</say-as> <say-as interpret-as="date" format="dm">5-12</say-as></speak>',
      EN,
    )
    expect(texts(plan)).toEqual(["3rd 4 1 5, 5 5 5 1 2|<700>|['h|E|l|oU]|O K December 5th"])
    expect(plan.words.map((word) => word.text)).toEqual(['3', '415-555', '12', 'hi', 'ok', '5-12'])
  })

  it('cut chunks where the rendering changes, nested prosody multiplying and voice and language replacing', async () => {
    const plan = await planSpeech(
      '<speak>Plain words <prosody rate="50%" pitch="+12st">slow and high <prosody rate="200%" volume="-6dB">quiet</prosody></prosody> ' +
        '<voice name="Richard"><lang xml:lang="fr">bonjour</lang></voice> <emphasis level="strong">now</emphasis>.</speak>',
      EN,
    )
    expect(plan.chunks.map((chunk) => [texts({ words: [], chunks: [chunk] })[0], chunk.rendering, chunk.continues ?? false])).toEqual([
      ['Plain words', undefined, true],
      ['slow and high', { rate: 0.5, pitch: 2 }, true],
      ['quiet', { pitch: 2, volume: 10 ** (-6 / 20) }, true],
      ['bonjour', { voice: 'Richard', language: 'fr' }, true],
      ['now', { rate: 0.85, pitch: 2 ** (3 / 12), volume: 1.4 }, true],
      ['.', undefined, false],
    ])
  })

  it('split sentences at <s> and <p> as well as at their punctuation', async () => {
    const plan = await planSpeech('<speak><p><s>One two</s><s>three four</s></p><p>Five. Six</p></speak>', { language: 'en', backend: 'flite' })
    expect(texts(plan)).toEqual(['One two', 'three four', 'Five.', 'Six'])
  })

  it('plan marks at the word that follows them, or past the last', async () => {
    const plan = await planSpeech('<speak><mark name="a"/>One <mark name="b"/>two<mark name="c"/></speak>', EN)
    expect(plan.marks).toEqual([{ name: 'a', word: 0 }, { name: 'b', word: 1 }, { name: 'c', word: 2 }])
  })

  it('plan the same however a session writes the document, and only once it is whole', async () => {
    const transcript = '<speak>Hello <break time="200ms"/> there. <mark name="m"/>Second sentence <sub alias="here">hr</sub>.</speak>'
    const whole = await planSpeech(transcript, EN)
    const planner = new SpeechPlanner(EN)
    const parts: SpeechPlan[] = []
    for (let i = 0; i < transcript.length; i += 7) {
      planner.write(transcript.slice(i, i + 7))
      planner.flush()
      parts.push(await planner.take())
    }
    planner.end()
    parts.push(await planner.take())
    expect(parts.slice(0, -2).every((part) => part.chunks.length === 0)).toBe(true)
    const joined = { words: parts.flatMap((p) => p.words), chunks: parts.flatMap((p) => p.chunks), marks: parts.flatMap((p) => p.marks ?? []) }
    expect(joined).toEqual(whole)
  })

  it('read an unknown element as its text when asked to', async () => {
    const transcript = '<speak>Hello <audio src="x.wav">there</audio> friend</speak>'
    expect((await failure(transcript)).extra?.offset).toBe(13)
    expect(texts(await planSpeech(transcript, { ...EN, unknownElements: 'text' }))).toEqual(['Hello there friend'])
  })

  for (const [transcript, code, offset] of [
    ['<speak>Hello <b>x</b></speak>', 'INVALID_MARKUP', 13],
    ['<speak>Hello', 'INVALID_MARKUP', 11],
    ['<speak>a &nbsp; b</speak>', 'INVALID_MARKUP', 14],
    ['<speak>a <break time="fast"/></speak>', 'INVALID_MARKUP', 9],
    ['<speak>a <sub>b</sub></speak>', 'INVALID_MARKUP', 9],
    ['<speak>a <sub alias="x"><break/></sub></speak>', 'INVALID_MARKUP', 24],
    ['<speak>a <say-as interpret-as="date" format="mdy">13/45/2020</say-as></speak>', 'INVALID_MARKUP', 9],
    ['<speak>a <mark name="m">text</mark></speak>', 'INVALID_MARKUP', 24],
    ['<speak>a <lang xml:lang="xx">b</lang></speak>', 'INVALID_LANGUAGE', 9],
    ['<speak>a <phoneme ph="tə/mɑː">b</phoneme></speak>', 'INVALID_PHONEMES', 9],
    ['<speak>a</speak> trailing', 'INVALID_MARKUP', 17],
  ] as const) {
    it(`refuse ${JSON.stringify(transcript)} as ${code} at offset ${offset}`, async () => {
      const error = await failure(transcript)
      expect(error.code).toBe(code)
      expect(error.status).toBe(400)
      expect(error.extra?.offset).toBe(offset)
      expect(error.message).toContain(`offset ${offset}`)
    })
  }

  it('refuse flite a language other than English', async () => {
    expect((await failure('<speak><lang xml:lang="fr">oui</lang></speak>', { language: 'en', backend: 'flite', languages: ['en'] })).code).toBe('INVALID_LANGUAGE')
  })

  it('refuse more distinct renderings than a request may open streams for', async () => {
    const body = Array.from({ length: 20 }, (_, i) => `<prosody rate="${100 + i}%">w</prosody>`).join(' ')
    expect((await failure(`<speak>${body}</speak>`)).message).toMatch(/at most 16/)
  })
})

describe('hostile SSML', () => {
  async function quickly(transcript: string, limitMs: number): Promise<SpeechPlan | TtsError> {
    const started = performance.now()
    const result = await planSpeech(transcript, EN).catch((error: unknown) => {
      expect(error).toBeInstanceOf(TtsError)
      return error as TtsError
    })
    expect(performance.now() - started).toBeLessThan(limitMs)
    return result
  }

  it('a billion laughs is refused at its DOCTYPE, nothing expanded', async () => {
    const entities = Array.from({ length: 10 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i};`.repeat(10)}">`).join('')
    const bomb = `<?xml version="1.0"?><!DOCTYPE speak [<!ENTITY lol0 "lol">${entities}]><speak>&lol10;</speak>`
    const error = await quickly(bomb, 200)
    expect(error).toBeInstanceOf(TtsError)
    expect((error as TtsError).message).toMatch(/DOCTYPE is not allowed/)
  })

  it('an external entity is refused the same way, nothing fetched', async () => {
    const error = await quickly('<!DOCTYPE speak [<!ENTITY x SYSTEM "file:///etc/passwd">]><speak>&x;</speak>', 200)
    expect((error as TtsError).code).toBe('INVALID_MARKUP')
  })

  it('deep nesting stops at the depth bound', async () => {
    const deep = `<speak>${'<prosody rate="100%">'.repeat(50000)}a${'</prosody>'.repeat(50000)}</speak>`
    const error = await quickly(deep, 1000)
    expect((error as TtsError).message).toMatch(/nested more than 32 deep/)
  })

  it('a document of 100 000 elements is planned in linear time', async () => {
    const many = `<speak>${'<s>word</s><mark name="m"/>'.repeat(50000)}</speak>`
    const plan = await quickly(many, 15000)
    expect((plan as SpeechPlan).words).toHaveLength(50000)
    expect((plan as SpeechPlan).marks).toHaveLength(50000)
  })

  it('a text node of 100 000 references is mapped in linear time', async () => {
    const plan = await quickly(`<speak>${'a&amp;b '.repeat(100000)}</speak>`, 10000)
    expect((plan as SpeechPlan).words[99999]!.text).toBe('a&b')
  })

  it('random fragments throw nothing but TtsError, each quickly', async () => {
    const FRAGMENTS = [
      '<s>', '</s>', '<p>', '</p>', '<break time="300ms"/>', '<break strength="weak"/>', '<break/>', '<prosody rate="slow">', '<prosody pitch="+3st" volume="loud">',
      '</prosody>', '<emphasis>', '</emphasis>', '<say-as interpret-as="characters">', '<say-as interpret-as="date" format="ymd">', '</say-as>',
      '<sub alias="x y">', '</sub>', '<phoneme ph="həˈloʊ">', '</phoneme>', '<lang xml:lang="de">', '</lang>', '<voice name="Richard">', '</voice>',
      '<mark name="m"/>', '<unknown>', '</unknown>', '&amp;', '&lt;', '&bogus;', '&#x1F600;', '<!-- c -->', '<![CDATA[a<b]]>', '<', '>', '&', '"', "'",
      'hello', 'world.', '2023-12-05', '$3.50', ' ', '\n', '\r\n', '你好', 'привет', '<phonemes>tə</phonemes>', '<digits>1 2</digits>',
    ]
    const next = random(20261126)
    let accepted = 0
    for (let i = 0; i < 800; i++) {
      let body = ''
      for (let n = Math.floor(next() * 20); n > 0; n--) body += FRAGMENTS[Math.floor(next() * FRAGMENTS.length)]
      const transcript = `<speak>${body}</speak>`
      const started = performance.now()
      try {
        const plan = await planSpeech(transcript, EN)
        for (const word of plan.words) expect(word.start <= word.end && word.end <= transcript.length).toBe(true)
        accepted++
      } catch (error) {
        if (!(error instanceof TtsError)) throw new Error(`${JSON.stringify(transcript)} threw ${String(error)}`)
        expect(['INVALID_MARKUP', 'INVALID_PHONEMES', 'INVALID_LANGUAGE']).toContain(error.code)
        expect(error.extra?.offset, `${JSON.stringify(transcript)}: ${error.message}`).toBeTypeOf('number')
        expect(error.extra!.offset as number).toBeLessThanOrEqual(transcript.length)
      }
      expect(performance.now() - started).toBeLessThan(250)
    }
    expect(accepted).toBeGreaterThan(50)
  })
})
