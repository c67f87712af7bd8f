import { setTimeout as sleep } from 'node:timers/promises'

/** Polls `condition` every 5 ms until it holds (true) or `ms` pass (false). */
export async function waitUntil(condition: () => boolean, ms = 5000): Promise<boolean> {
  const deadline = Date.now() + ms
  while (!condition()) {
    if (Date.now() > deadline) return false
    await sleep(5)
  }
  return true
}
