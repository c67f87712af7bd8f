/**
 * serve's log lines, written in batches: a line is queued and the queue goes to the stream in one
 * write per turn of the event loop, so a busy server makes one write (a system call, and a wake-up
 * of whatever reads the pipe) per turn instead of one per request. What is queued is written at
 * once when the process exits, so no line is lost on a normal stop, process.exit or an uncaught
 * error; lines keep their order.
 */
export interface LogLines {
  /** Queues `line` (a newline is added). */
  write(line: string): void
  /** Writes what is queued now and stops listening for the process's exit. */
  close(): void
}

export function batchedLines(stream: NodeJS.WritableStream): LogLines {
  let queued = ''
  let scheduled = false
  const flush = () => {
    scheduled = false
    if (queued === '') return
    const text = queued
    queued = ''
    stream.write(text)
  }
  process.on('exit', flush)
  return {
    write(line) {
      queued += `${line}\n`
      if (scheduled) return
      scheduled = true
      setImmediate(flush)
    },
    close() {
      flush()
      process.off('exit', flush)
    },
  }
}
