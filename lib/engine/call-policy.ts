/**
 * What a caller may speak with, for the calls made within `withCallPolicy` (a browser token bound
 * to one voice or model). The server runs each request and realtime context of such a credential
 * inside it; the engine checks every request it resolves against it, whatever route or dialect
 * made the request, so no route can forget the check.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { TtsError } from '../errors.js'
import type { ResolvedRequest } from './resolve.js'

export interface CallPolicy {
  voiceId?: string
  modelId?: string
}

const current = new AsyncLocalStorage<CallPolicy>()

export function withCallPolicy<T>(policy: CallPolicy | undefined, work: () => T): T {
  return policy ? current.run(policy, work) : work()
}

/** Throws TOKEN_RESTRICTED when the request speaks with a voice or model its caller's policy does not allow. */
export function checkCallPolicy(resolved: ResolvedRequest): void {
  const policy = current.getStore()
  if (!policy) return
  const voiceId = resolved.voice.record.voice_id
  // A mix speaks with more than its first voice, so a caller bound to one voice may not mix.
  if (policy.voiceId !== undefined && (voiceId !== policy.voiceId || resolved.packVoice !== undefined)) {
    throw new TtsError('TOKEN_RESTRICTED', `this token speaks only with voice '${policy.voiceId}'`)
  }
  if (policy.modelId !== undefined && resolved.model.id !== policy.modelId) {
    throw new TtsError('TOKEN_RESTRICTED', `this token speaks only with model '${policy.modelId}'`)
  }
}
