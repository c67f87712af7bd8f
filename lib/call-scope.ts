/**
 * The cancellation of engine calls. Each call gets a signal that the caller's own signal or
 * engine.close() aborts, whichever comes first, from its start (voice lookup, planning) to its
 * end. The engine holds its calls only weakly: a stream its consumer drops is collected, and a
 * FinalizationRegistry then cancels its native work.
 */
import { abortedError, TtsError } from './errors.js'

/** What must happen when a call ends or is collected; it holds the call's controller only weakly. */
interface Cleanup {
  calls: Set<WeakRef<AbortController>>
  ref: WeakRef<AbortController>
  unlisten: () => void
  cancelNative?: () => void
}

function release(cleanup: Cleanup): void {
  cleanup.cancelNative?.()
  cleanup.unlisten()
  cleanup.calls.delete(cleanup.ref)
}

const dropped = new FinalizationRegistry<Cleanup>(release)

/** One call in flight. `signal` aborts with the caller's reason, or with ENGINE_CLOSED. */
export class CallScope {
  private readonly controller = new AbortController()
  private readonly cleanup: Cleanup

  constructor(calls: Set<WeakRef<AbortController>>, callerSignal: AbortSignal | undefined) {
    const ref = new WeakRef(this.controller)
    const onAbort = (): void => ref.deref()?.abort(callerSignal?.reason)
    callerSignal?.addEventListener('abort', onAbort, { once: true })
    this.cleanup = { calls, ref, unlisten: () => callerSignal?.removeEventListener('abort', onAbort) }
    calls.add(ref)
    dropped.register(this.controller, this.cleanup, this.cleanup)
    if (callerSignal?.aborted) this.controller.abort(callerSignal.reason)
  }

  get signal(): AbortSignal {
    return this.controller.signal
  }

  /** Aborts the call itself (a speech session's abort()). */
  abort(reason?: unknown): void {
    this.controller.abort(reason)
  }

  /** Throws the call's TtsError (ABORTED, or ENGINE_CLOSED) once it is aborted. */
  throwIfAborted(): void {
    if (this.controller.signal.aborted) throw abortedError(this.controller.signal)
  }

  /** Runs `cancel` when the call is aborted, ends, or is dropped by its consumer and collected. */
  onCancel(cancel: () => void): void {
    this.cleanup.cancelNative = cancel
    this.controller.signal.addEventListener('abort', cancel, { once: true })
  }

  /** The call is over: stops its native work, forgets it. */
  end(): void {
    dropped.unregister(this.cleanup)
    release(this.cleanup)
  }
}

/** The calls of one engine, to abort them all on close(). */
export class CallTracker {
  private readonly calls = new Set<WeakRef<AbortController>>()

  begin(callerSignal: AbortSignal | undefined): CallScope {
    return new CallScope(this.calls, callerSignal)
  }

  abortAll(reason: TtsError): void {
    for (const ref of [...this.calls]) ref.deref()?.abort(reason)
  }

  /** Calls still tracked (in flight, or dropped and not yet collected). */
  get size(): number {
    return this.calls.size
  }
}
