/**
 * Child process: measures the in-process engine for one subject (argv[2]) and prints the result
 * as JSON. Each subject runs in its own process so its peak RSS is its own.
 */
import { createEngine } from '../../lib/engine/create.js'
import { measureSpeaker, type SpeakerMeasurements } from '../harness/protocol.js'
import { peakRssMib } from '../harness/peak-rss.js'
import { subjectById } from '../harness/subjects.js'
import { timeSpeech } from '../harness/timed-speech.js'

export interface EngineMeasurements extends SpeakerMeasurements {
  /** Node with the addon loaded and the engine created, before any synthesis. */
  baselineRssMib: number
  peakRssMib: number
}

const subject = subjectById(process.argv[2] ?? '')
const engine = await createEngine()
const baselineRssMib = peakRssMib()
const measured = await measureSpeaker((text) => timeSpeech(engine, subject, text))
await engine.close()
const result: EngineMeasurements = { ...measured, baselineRssMib, peakRssMib: peakRssMib() }
process.stdout.write(JSON.stringify(result) + '\n')
