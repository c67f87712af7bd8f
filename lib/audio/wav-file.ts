/**
 * WAV files with their real sizes. A streamed WAV starts with the unknown-length header (its
 * length is not known when its first bytes go out); once the whole stream sits in a file, the
 * RIFF, `fact` and `data` sizes can be filled in from the file's length, so every reader (not only
 * those that read to the end) sees the real duration.
 */
import { createWriteStream, fstat, ftruncate, read, write } from 'node:fs'
import { open } from 'node:fs/promises'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { promisify } from 'node:util'
import { TtsError } from '../errors.js'
import { readWavHeader, type WavHeader } from './riff.js'

/** The largest RIFF file: its size field is 32 bits. */
const MAX_RIFF_BYTES = 0xffffffff
/** The header of every WAV this library writes is shorter; a longer search means it is not one of ours. */
const HEADER_SEARCH_BYTES = 256

const fstatAsync = promisify(fstat)
const readAsync = promisify(read)
const writeAsync = promisify(write)
const ftruncateAsync = promisify(ftruncate)

export interface WavSizes {
  /** Bytes of audio in the `data` chunk. */
  dataBytes: number
  /** Where the audio starts: the header's length. */
  dataOffset: number
  /** Bytes per sample frame (the `fmt` block align). */
  blockAlign: number
  /** False where the sizes could not be written: over 4 GiB, or a descriptor opened for appending. */
  fixed: boolean
}

function notWav(why: string): TtsError {
  return new TtsError('INVALID_REQUEST', `not a WAV file this helper can size: ${why}`)
}

function headerOf(bytes: Buffer): WavHeader {
  try {
    return readWavHeader(bytes)
  } catch (error) {
    throw notWav((error as Error).message)
  }
}

/**
 * Fills in the sizes of the WAV in a file (a path, or an open file descriptor such as a
 * redirected stdout) from the file's length: RIFF size, `data` size and, where the header has a
 * `fact` chunk, its sample count. A file over 4 GiB keeps the unknown-length sizes (RIFF cannot
 * say more), and so does a descriptor opened for appending (`>>`: a positioned write lands at the
 * end there, so it is cut off again). Throws INVALID_REQUEST when the file is not a WAV.
 */
export async function fixWavSizes(file: string | number): Promise<WavSizes> {
  if (typeof file === 'number') return fixWavSizesAt(file)
  const handle = await open(file, 'r+')
  try {
    return await fixWavSizesAt(handle.fd)
  } finally {
    await handle.close()
  }
}

async function fixWavSizesAt(fd: number): Promise<WavSizes> {
  const header = Buffer.alloc(HEADER_SEARCH_BYTES)
  const { bytesRead } = await readAsync(fd, header, 0, header.length, 0)
  const layout = headerOf(header.subarray(0, bytesRead))
  const fileBytes = (await fstatAsync(fd)).size
  const dataBytes = fileBytes - layout.dataOffset
  const sizes = { dataBytes, dataOffset: layout.dataOffset, blockAlign: layout.blockAlign }
  if (fileBytes - 8 > MAX_RIFF_BYTES) return { ...sizes, fixed: false }
  const field = (value: number) => {
    const bytes = Buffer.alloc(4)
    bytes.writeUInt32LE(value)
    return bytes
  }
  await writeAsync(fd, field(fileBytes - 8), 0, 4, 4)
  await writeAsync(fd, field(dataBytes), 0, 4, layout.dataOffset - 4)
  if (layout.factCountAt !== undefined) await writeAsync(fd, field(Math.floor(dataBytes / layout.blockAlign)), 0, 4, layout.factCountAt)
  if ((await fstatAsync(fd)).size === fileBytes) return { ...sizes, fixed: true }
  await ftruncateAsync(fd, fileBytes)
  return { ...sizes, fixed: false }
}

/**
 * Writes a streamed WAV (the engine's `stream()` with `container: 'wav'`) to a file as it comes,
 * then fills in its real sizes. Returns the sizes written.
 */
export async function writeWavFile(file: string, wav: AsyncIterable<Buffer>): Promise<WavSizes> {
  await pipeline(Readable.from(wav), createWriteStream(file))
  return fixWavSizes(file)
}
