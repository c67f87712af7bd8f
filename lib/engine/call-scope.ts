/**
 * The cancellation of engine calls. Each call gets a signal that the caller's own signal or
 * engine.close() aborts, whichever comes first, from its start (voice lookup, planning) to its
 * end. The engine holds its calls only weakly: a stream its consumer drops is collected, and its
 * native stream with it, which cancels itself and frees its audio; a FinalizationRegistry then
 * forgets the call.
 */
import { abortedError, TtsError } from '../errors.js'

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

  /** `caller`: the caller's own signal, which a host may have bound its request to (call-policy.ts, speech-events.ts). */
  constructor(calls: Set<WeakRef<AbortController>>, readonly caller: AbortSignal | undefined) {
    const ref = new WeakRef(this.controller)
    const onAbort = (): void => ref.deref()?.abort(caller?.reason)
    caller?.addEventListener('abort', onAbort, { once: true })
    this.cleanup = { calls, ref, unlisten: () => caller?.removeEventListener('abort', onAbort) }
    calls.add(ref)
    dropped.register(this.controller, this.cleanup, this.cleanup)
    if (caller?.aborted) this.controller.abort(caller.reason)
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

/** The second argument of every engine call. */
export interface CallOptions {
  signal?: AbortSignal
}

/** The caller's signal, from call options checked by hand: one field, and no request to count as a parse. */
function callerSignal(options: unknown): AbortSignal | undefined {
  if (options === undefined) return undefined
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new TtsError('INVALID_REQUEST', 'invalid call options: expected an object such as { signal }')
  }
  let signal: unknown
  try {
    const unknown = Object.keys(options).filter((key) => key !== 'signal')
    if (unknown.length > 0) throw new TtsError('INVALID_REQUEST', `invalid call options: unknown field '${unknown[0]}' (call options take signal)`)
    signal = (options as { signal?: unknown }).signal
  } catch (cause) {
    if (cause instanceof TtsError) throw cause
    throw new TtsError('INVALID_REQUEST', `invalid call options: reading them threw ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
  }
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw new TtsError('INVALID_REQUEST', 'invalid call options: signal must be an AbortSignal')
  return signal
}

/** The calls of one engine, to abort them all on close(). */
export class CallTracker {
  private readonly calls = new Set<WeakRef<AbortController>>()
  private closedWith: TtsError | undefined

  /** Starts a call under the caller's options ({ signal }); ENGINE_CLOSED once the engine is closed. */
  begin(options: unknown): CallScope {
    const signal = callerSignal(options)
    this.assertOpen()
    return new CallScope(this.calls, signal)
  }

  assertOpen(): void {
    if (this.closedWith) throw this.closedWith
  }

  /** Aborts every call in flight, and refuses new ones, with `reason`. */
  close(reason: TtsError): void {
    this.closedWith = reason
    this.abortAll(reason)
  }

  abortAll(reason: TtsError): void {
    for (const ref of [...this.calls]) ref.deref()?.abort(reason)
  }

  /** Calls still tracked (in flight, or dropped and not yet collected). */
  get size(): number {
    return this.calls.size
  }
}
