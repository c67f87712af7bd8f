/**
 * Jobs' audio in a directory every replica shares: one file of PCM per job, `<id>.pcm`, written in
 * order by the one worker that holds the job, read by any replica while it grows. What the file
 * holds past the job's committed length is not yet the job's: a worker taking the job up again
 * cuts it there.
 */
import { constants } from 'node:fs'
import { mkdir, open, readdir, stat, unlink, type FileHandle } from 'node:fs/promises'
import path from 'node:path'
import { TtsError } from '../../errors.js'

/** Bytes read from a job's file at a time while it is streamed. */
const READ_BYTES = 64 * 1024

export class JobFiles {
  constructor(readonly dir: string) {}

  async ensure(): Promise<void> {
    try {
      await mkdir(this.dir, { recursive: true, mode: 0o700 })
    } catch (cause) {
      throw new TtsError('IO_FAILED', `the jobs directory ${this.dir} could not be made`, { cause })
    }
  }

  pathOf(id: string): string {
    return path.join(this.dir, `${id}.pcm`)
  }

  /**
   * The job's file cut to `committed` bytes, for writing on from there; undefined when it holds
   * fewer (a machine that lost what it had written): the caller starts the job afresh.
   */
  async resume(id: string, committed: number): Promise<FileHandle | undefined> {
    const file = this.pathOf(id)
    const handle = await open(file, constants.O_RDWR | constants.O_CREAT, 0o600)
    const { size } = await handle.stat()
    if (size < committed) {
      await handle.close()
      return undefined
    }
    await handle.truncate(committed)
    return handle
  }

  /** A file made afresh (empty). */
  async restart(id: string): Promise<FileHandle> {
    return open(this.pathOf(id), 'w+', 0o600)
  }

  /** Reads [from, to) of the job's file in pieces; nothing when it does not exist yet. */
  async *read(id: string, from: number, to: number): AsyncGenerator<Buffer> {
    let handle: FileHandle
    try {
      handle = await open(this.pathOf(id), 'r')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
      throw error
    }
    try {
      for (let position = from; position < to; ) {
        const buffer = Buffer.alloc(Math.min(READ_BYTES, to - position))
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, position)
        if (bytesRead === 0) return
        position += bytesRead
        yield buffer.subarray(0, bytesRead)
      }
    } finally {
      await handle.close()
    }
  }

  async remove(id: string): Promise<void> {
    await unlink(this.pathOf(id)).catch(() => {})
  }

  /** Job ids whose file was last written before `before` (ms since the epoch). */
  async writtenBefore(before: number): Promise<string[]> {
    const names = await readdir(this.dir).catch(() => [])
    const old: string[] = []
    for (const name of names) {
      if (!name.endsWith('.pcm')) continue
      const info = await stat(path.join(this.dir, name)).catch(() => undefined)
      if (info && info.mtimeMs < before) old.push(name.slice(0, -'.pcm'.length))
    }
    return old
  }
}
