/**
 * ElevenLabs' `output_format` names (codec_rate[_kbps]) as the SPEC's output_format fields. Each
 * name maps onto exactly one SPEC format, or is refused here with the names that are served: a
 * rate or bit rate the engine cannot make is a 400, never a near one.
 */
import { mp3BitRates, OPUS_BIT_RATE_RANGE, SAMPLE_RATES } from '../../../audio/format.js'
import type { OutputFormatRequest } from '../../../engine/requests.js'
import { TtsError } from '../../../errors.js'

export const DEFAULT_OUTPUT_FORMAT = 'mp3_44100_128'

export interface DialectFormat {
  /** The SPEC's output_format fields (the engine's gate checks them once more). */
  fields: OutputFormatRequest
  contentType: string
}

const SUPPORTED = [
  `mp3_<rate>_<kbps> (rate ${SAMPLE_RATES.join('|')}, kbps an MP3 bit rate of that rate)`,
  `pcm_<rate> (${SAMPLE_RATES.join('|')})`,
  'ulaw_8000',
  'alaw_8000',
  `opus_48000_<kbps> (${OPUS_BIT_RATE_RANGE.min / 1000}-${OPUS_BIT_RATE_RANGE.max / 1000})`,
  `wav_<rate> (${SAMPLE_RATES.join('|')})`,
].join(', ')

function refuse(name: string, why: string): TtsError {
  return new TtsError('FORMAT_NOT_RECOGNIZED', `output_format '${name}' is not supported (${why}); supported: ${SUPPORTED}`)
}

function sampleRate(name: string, digits: string): (typeof SAMPLE_RATES)[number] {
  const rate = Number(digits)
  const known = SAMPLE_RATES.find((r) => r === rate)
  if (known === undefined) throw refuse(name, `no sample rate ${digits}`)
  return known
}

/** The format an `output_format` name asks for; throws FORMAT_NOT_RECOGNIZED naming what is served. */
export function parseOutputFormat(name: string | null | undefined): DialectFormat {
  const given = name ?? DEFAULT_OUTPUT_FORMAT
  const match = /^(mp3|pcm|ulaw|alaw|opus|wav)_(\d{1,6})(?:_(\d{1,4}))?$/.exec(given)
  if (!match) throw refuse(given.slice(0, 64), 'unknown name')
  const [, codec, rateDigits, kbpsDigits] = match as unknown as [string, string, string, string | undefined]
  const rate = sampleRate(given, rateDigits)
  const compressed = codec === 'mp3' || codec === 'opus'
  if (compressed !== (kbpsDigits !== undefined)) throw refuse(given, compressed ? 'a bit rate in kbps is needed' : 'only mp3 and opus take a bit rate')
  const bitRate = Number(kbpsDigits) * 1000
  switch (codec) {
    case 'mp3':
      if (!mp3BitRates(rate).includes(bitRate)) throw refuse(given, `an MP3 at ${rate} Hz takes ${mp3BitRates(rate).map((b) => b / 1000).join('|')} kbps`)
      return { fields: { container: 'mp3', sample_rate: rate, bit_rate: bitRate }, contentType: 'audio/mpeg' }
    case 'opus':
      if (rate !== 48000) throw refuse(given, 'Opus is served at 48000 Hz')
      if (bitRate < OPUS_BIT_RATE_RANGE.min || bitRate > OPUS_BIT_RATE_RANGE.max) throw refuse(given, 'no such Opus bit rate')
      return { fields: { container: 'ogg', sample_rate: rate, bit_rate: bitRate }, contentType: 'audio/ogg; codecs=opus' }
    case 'pcm':
      return { fields: { container: 'raw', encoding: 'pcm_s16le', sample_rate: rate }, contentType: 'audio/pcm' }
    case 'wav':
      return { fields: { container: 'wav', encoding: 'pcm_s16le', sample_rate: rate }, contentType: 'audio/wav' }
    default: {
      // ulaw and alaw: G.711 telephony, 8 kHz only.
      if (rate !== 8000) throw refuse(given, `${codec} is served at 8000 Hz`)
      const encoding = codec === 'ulaw' ? 'pcm_mulaw' : 'pcm_alaw'
      return { fields: { container: 'raw', encoding, sample_rate: rate }, contentType: codec === 'ulaw' ? 'audio/basic' : 'audio/x-alaw-basic' }
    }
  }
}
