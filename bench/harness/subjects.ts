/**
 * What is measured: each in-process configuration of the engine, paired with the command-line
 * program that runs the same synthesizer with the same voice, so each table row compares like
 * with like. The in-process output rate is the backend's own rate (no resampling), as the CLIs do;
 * one extra espeak-ng row at 44.1 kHz shows what the library's usual output format adds.
 */
import type { SampleRate } from '../../lib/audio/format.js'
import { PREDEFINED_VOICES } from '../../lib/voices/predefined.js'

export interface CliCommand {
  command: string
  /** The argument list that speaks `text` into the WAV file `wavPath`. */
  args(text: string, wavPath: string): string[]
}

export interface Subject {
  id: string
  label: string
  model_id: 'svc_flash_v1.5' | 'svc_pro_v1.0'
  voiceName: string
  sampleRate: SampleRate
  /** The equivalent command-line run; absent for in-process-only variants. */
  cli?: CliCommand
}

export const SUBJECTS: readonly Subject[] = [
  {
    id: 'espeak',
    label: 'espeak-ng en-us+f3 (Sarah, svc_flash_v1.5)',
    model_id: 'svc_flash_v1.5',
    voiceName: 'Sarah',
    sampleRate: 22050,
    cli: { command: 'espeak-ng', args: (text, wavPath) => ['-v', 'en-us+f3', '-w', wavPath, text] },
  },
  {
    id: 'espeak-44k',
    label: 'espeak-ng en-us+f3 resampled to 44.1 kHz',
    model_id: 'svc_flash_v1.5',
    voiceName: 'Sarah',
    sampleRate: 44100,
  },
  {
    id: 'slt',
    label: 'flite slt (Sarah, svc_pro_v1.0)',
    model_id: 'svc_pro_v1.0',
    voiceName: 'Sarah',
    sampleRate: 16000,
    // `-t`, not `-f`: NATIVE.md B1 found `-f` hangs when its output is a pipe.
    cli: { command: 'flite', args: (text, wavPath) => ['-voice', 'slt', '-t', text, '-o', wavPath] },
  },
  {
    id: 'rms',
    label: 'flite rms (Richard, svc_pro_v1.0)',
    model_id: 'svc_pro_v1.0',
    voiceName: 'Richard',
    sampleRate: 16000,
    cli: { command: 'flite', args: (text, wavPath) => ['-voice', 'rms', '-t', text, '-o', wavPath] },
  },
  {
    id: 'awb',
    label: 'flite awb (Alan, svc_pro_v1.0)',
    model_id: 'svc_pro_v1.0',
    voiceName: 'Alan',
    sampleRate: 16000,
    cli: { command: 'flite', args: (text, wavPath) => ['-voice', 'awb', '-t', text, '-o', wavPath] },
  },
  {
    id: 'kal16',
    label: 'flite kal16 (Kal, svc_pro_v1.0)',
    model_id: 'svc_pro_v1.0',
    voiceName: 'Kal',
    sampleRate: 16000,
    cli: { command: 'flite', args: (text, wavPath) => ['-voice', 'kal16', '-t', text, '-o', wavPath] },
  },
]

export function subjectById(id: string): Subject {
  const subject = SUBJECTS.find((s) => s.id === id)
  if (!subject) throw new Error(`unknown subject '${id}' (expected one of ${SUBJECTS.map((s) => s.id).join(', ')})`)
  return subject
}

/** The engine request that speaks `transcript` as `subject`, as raw 16-bit PCM. */
export function requestFor(subject: Subject, transcript: string) {
  const voice = PREDEFINED_VOICES.find((v) => v.record.name === subject.voiceName && v.record.language === 'en')
  if (!voice) throw new Error(`no predefined English voice named ${subject.voiceName}`)
  return {
    model_id: subject.model_id,
    transcript,
    voice: { mode: 'id' as const, id: voice.record.voice_id },
    output_format: { container: 'raw' as const, encoding: 'pcm_s16le' as const, sample_rate: subject.sampleRate },
  }
}
