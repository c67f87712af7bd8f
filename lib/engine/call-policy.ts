/**
 * What a caller may speak with (a browser token bound to one voice or model), bound to the signal
 * its calls carry. The server binds each request's and realtime context's signal to its
 * credential's policy; the engine checks every request it resolves under a bound signal against
 * it, whatever route or dialect made the request. A binding by signal, not by async context
 * (AsyncLocalStorage), so that no promise of the process pays for async-context propagation.
 */
import { TtsError } from '../errors.js'
import type { ResolvedRequest } from './resolve.js'

export interface CallPolicy {
  voiceId?: string
  modelId?: string
}

const policies = new WeakMap<AbortSignal, CallPolicy>()

/** Holds the engine calls made with `signal` to `policy` (none: no restriction). */
export function bindCallPolicy(signal: AbortSignal, policy: CallPolicy | undefined): void {
  if (policy) policies.set(signal, policy)
}

/** Throws TOKEN_RESTRICTED when the request speaks with a voice or model its caller's policy does not allow. */
export function checkCallPolicy(resolved: ResolvedRequest, caller: AbortSignal | undefined): void {
  const policy = caller && policies.get(caller)
  if (!policy) return
  // A mix speaks with more than its first voice, so a caller bound to one voice may not mix.
  checkVoice(policy, resolved.packVoice === undefined ? resolved.voice.record.voice_id : undefined)
  if (policy.modelId !== undefined && resolved.model.id !== policy.modelId) {
    throw new TtsError('TOKEN_RESTRICTED', `this token speaks only with model '${policy.modelId}'`)
  }
}

/** Throws TOKEN_RESTRICTED when a voice the text switches to (SSML's `<voice>`) is not the one its caller's policy allows. */
export function checkSwitchedVoice(voiceId: string, caller: AbortSignal | undefined): void {
  const policy = caller && policies.get(caller)
  if (policy) checkVoice(policy, voiceId)
}

/** `voiceId` undefined: more than one voice (a mix). */
function checkVoice(policy: CallPolicy, voiceId: string | undefined): void {
  if (policy.voiceId !== undefined && voiceId !== policy.voiceId) {
    throw new TtsError('TOKEN_RESTRICTED', `this token speaks only with voice '${policy.voiceId}'`)
  }
}
