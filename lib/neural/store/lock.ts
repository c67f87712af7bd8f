/**
 * One pull of a pack at a time, across processes: a lock file made with O_EXCL holding the
 * owner's pid. A lock whose owner has died is taken over; a live one is waited for.
 */
import { open, readFile, stat, unlink } from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { abortedError } from '../../errors.js'
import { fileSystemError } from '../hub/download.js'

const POLL_MS = 100
/** A lock still without a pid after this long was left by a process that died making it. */
const UNWRITTEN_LOCK_MS = 5_000

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Held in this process: another pull of the same pack here waits as one from elsewhere would. */
const heldHere = new Set<string>()

export async function acquireLock(file: string, signal?: AbortSignal): Promise<() => Promise<void>> {
  for (;;) {
    if (signal?.aborted) throw abortedError(signal)
    if (!heldHere.has(file)) {
      try {
        const handle = await open(file, 'wx')
        await handle.writeFile(String(process.pid))
        await handle.close()
        heldHere.add(file)
        return async () => {
          heldHere.delete(file)
          await unlink(file).catch(() => {})
        }
      } catch (cause) {
        if ((cause as NodeJS.ErrnoException).code !== 'EEXIST') throw fileSystemError(file, cause)
        const owner = Number(await readFile(file, 'utf8').catch(() => ''))
        const age = Date.now() - ((await stat(file).catch(() => undefined))?.mtimeMs ?? Date.now())
        // A lock left by a dead process is stale, and so is one its maker died before writing its pid into.
        if ((Number.isInteger(owner) && owner > 0 && !alive(owner)) || (!(owner > 0) && age > UNWRITTEN_LOCK_MS)) {
          await unlink(file).catch(() => {})
          continue
        }
      }
    }
    await sleep(POLL_MS, undefined, signal ? { signal } : {}).catch(() => {})
  }
}
