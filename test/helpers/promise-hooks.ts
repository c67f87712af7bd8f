import { executionAsyncId } from 'node:async_hooks'

/**
 * Whether promise hooks are on in this process (an AsyncLocalStorage in use or an async hook
 * turns them on, and every promise then pays for them): with them off, a promise's reaction runs
 * with no async id of its own.
 */
export function promiseHooksOn(): Promise<boolean> {
  return new Promise((resolve) => {
    setImmediate(() => {
      void Promise.resolve().then(() => resolve(executionAsyncId() !== 0))
    })
  })
}
