/**
 * A streamed FLAC saved to a file says "total samples unknown" (its length was not known when its
 * header went out); once the speech has ended, the file's STREAMINFO can say how long it is.
 */
import { read, write } from 'node:fs'
import { open } from 'node:fs/promises'
import { promisify } from 'node:util'
import { TtsError } from '../errors.js'
import { setFlacTotalSamples } from './format.js'

/** "fLaC", the STREAMINFO block header, then STREAMINFO up to the end of its total samples. */
const STREAMINFO_HEAD = 4 + 4 + 18

const readAsync = promisify(read)
const writeAsync = promisify(write)

/** Writes `totalSamples` into the STREAMINFO of a FLAC file (a path, or a read-write descriptor). */
export async function fixFlacLength(file: string | number, totalSamples: number): Promise<void> {
  if (typeof file === 'string') {
    const handle = await open(file, 'r+')
    try {
      return await fixFlacLength(handle.fd, totalSamples)
    } finally {
      await handle.close()
    }
  }
  const head = Buffer.alloc(STREAMINFO_HEAD)
  const { bytesRead } = await readAsync(file, head, 0, head.length, 0)
  try {
    setFlacTotalSamples(head.subarray(0, bytesRead), totalSamples)
  } catch {
    throw new TtsError('INVALID_REQUEST', 'not a FLAC file this helper can size: it does not start with fLaC and STREAMINFO')
  }
  await writeAsync(file, head, 0, bytesRead, 0)
}
