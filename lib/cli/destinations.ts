/**
 * Where `say` sends its audio: a file, stdout, or a player's stdin. Each opens on the first audio
 * (a request refused before any audio leaves no empty file behind), starts with its header, and
 * on close leaves a WAV with its real sizes wherever the bytes landed in a file.
 */
import { fstatSync } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'
import type { Writable } from 'node:stream'
import { fixWavSizes } from '../audio/wav-file.js'
import { TtsError } from '../errors.js'
import { ioError } from './exit.js'
import type { Player } from './player.js'

export interface AudioDestination {
  /** For the summary line: `hello.wav 541.2 kB`, `stdout 541.2 kB`, `played with aplay`. */
  describe(): string
  write(audio: Buffer): Promise<void>
  /**
   * After the last write, or a failure: flush, close, and give a WAV file its sizes. `complete`:
   * the speech ended (speech of no length still makes a valid, empty WAV); after a failure the
   * audio so far is kept, and a destination never written stays untouched.
   */
  close(complete: boolean): Promise<void>
}

const STDOUT_FD = 1

function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} kB`
  return `${(bytes / 1_000_000).toFixed(1)} MB`
}

/**
 * A file, written through a read-write handle so that `seal` can fill in what was unknown while
 * the audio streamed (a WAV's sizes, a FLAC's length) once it has all been written.
 */
export function fileDestination(file: string, header: Buffer | undefined, seal?: (fd: number, complete: boolean) => Promise<unknown>): AudioDestination {
  let handle: FileHandle | undefined
  let bytes = 0
  const opened = async (): Promise<FileHandle> => {
    if (handle) return handle
    try {
      handle = await open(file, 'w+')
    } catch (error) {
      throw ioError(`cannot write ${file}`, error)
    }
    if (header) await put(header)
    return handle
  }
  const put = async (audio: Buffer) => {
    try {
      await handle!.write(audio)
    } catch (error) {
      throw ioError(`cannot write ${file}`, error)
    }
    bytes += audio.length
  }
  return {
    describe: () => `${file} ${formatBytes(bytes)}`,
    write: async (audio) => {
      await opened()
      await put(audio)
    },
    close: async (complete) => {
      if (!handle && !complete) return
      const file = await opened()
      try {
        await seal?.(file.fd, complete)
      } finally {
        await file.close()
      }
    },
  }
}

/** Writes one buffer and waits until the stream has taken it (one write in flight is all the buffering). */
function writeTo(stream: Writable, audio: Buffer, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(audio, (error) => (error ? reject(ioError(`cannot write to ${what}`, error)) : resolve()))
  })
}

/**
 * Stdout. A pipe cannot be rewound, so a WAV there keeps the streamed header (sizes 0xFFFFFFFF,
 * read to the end by sox, ffmpeg and browsers). Stdout redirected to a file (`> x.wav`) gets its
 * sizes filled in at the end, through /proc/self/fd/1 (a new read-write description of the same
 * file, so `>>` does not push the write to the end) when the file held only our audio.
 */
export function stdoutDestination(stdout: NodeJS.WriteStream, header: Buffer | undefined): AudioDestination {
  const startedEmptyFile = (() => {
    const stat = fstatSync(STDOUT_FD)
    return stat.isFile() && stat.size === 0
  })()
  let bytes = 0
  let failure: unknown
  stdout.on('error', (error) => { failure = error })  // reported by the write that met it
  const put = async (audio: Buffer) => {
    if (failure) throw ioError('cannot write to stdout', failure)
    await writeTo(stdout, audio, 'stdout')
    bytes += audio.length
  }
  return {
    describe: () => `stdout ${formatBytes(bytes)}`,
    write: async (audio) => {
      if (bytes === 0 && header) await put(header)
      await put(audio)
    },
    close: async (complete) => {
      if (bytes === 0 && header && complete) await put(header)
      if (!header || !startedEmptyFile || fstatSync(STDOUT_FD).size !== bytes) return
      await fixWavSizes('/proc/self/fd/1').catch(() => undefined)  // elsewhere than Linux: the streamed header stays
    },
  }
}

/** A player reading the audio from its stdin, as it is made. */
export async function playerDestination(player: Player, header: Buffer | undefined): Promise<AudioDestination> {
  // node:child_process (with node:net and node:dgram) loads only for --play: a few ms of every start.
  const { spawn } = await import('node:child_process')
  const child = spawn(player.path, player.args, { stdio: ['pipe', 'ignore', 'inherit'] })
  let failure: unknown
  /** Why the player stopped, when it did not end well. */
  const stopped = new Promise<string | undefined>((resolve) => {
    child.on('error', (error) => {
      failure ??= error
      resolve(undefined)
    })
    child.on('exit', (code, signal) => resolve(code === 0 ? undefined : (signal ?? `exit code ${code}`)))
  })
  child.stdin.on('error', (error) => { failure ??= error })
  let bytes = 0
  const what = `the player ${player.name}`
  const put = async (audio: Buffer) => {
    if (failure) throw ioError(`cannot play with ${player.name}`, failure)
    await writeTo(child.stdin, audio, what)
    bytes += audio.length
  }
  return {
    describe: () => `played with ${player.name}`,
    write: async (audio) => {
      if (bytes === 0 && header) await put(header)
      await put(audio)
    },
    close: async (complete) => {
      child.stdin.end()
      const problem = await stopped
      if (!complete) return  // the failure that ended the speech is the one to report
      if (failure) throw ioError(`cannot play with ${player.name}`, failure)
      if (problem) throw new TtsError('IO_FAILED', `${what} stopped with ${problem}`)
    },
  }
}
