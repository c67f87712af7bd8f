/**
 * Awaiting something that cannot itself be cancelled (a voice store, a worker's reply) without
 * waiting for it once the call is aborted.
 */
import { abortedError } from './errors.js'

/** `promise`, or a rejection with the call's TtsError (ABORTED, ENGINE_CLOSED) as soon as `signal` aborts. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise
  if (signal.aborted) {
    promise.catch(() => {})  // settles unobserved
    return Promise.reject(abortedError(signal))
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortedError(signal))
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}
