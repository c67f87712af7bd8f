/**
 * Writes held to the end of the event loop's turn: what a connection sends in one turn (a part of
 * audio and the response's end, a context's last audio and its final event, other contexts'
 * chunks) goes out in one system call instead of one each.
 */
import type { Writable } from 'node:stream'

/** A function that corks `stream` once a turn and uncorks it when the turn ends; `end()` flushes sooner. */
export function turnWrites(stream: Pick<Writable, 'cork' | 'uncork'>): () => void {
  let held = false
  const release = () => {
    held = false
    stream.uncork()
  }
  return () => {
    if (held) return
    held = true
    stream.cork()
    setImmediate(release)
  }
}
