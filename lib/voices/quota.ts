/** Per-owner quotas on stored voices: how many, and how many bytes of samples. */
import { TtsError } from '../errors.js'
import type { VoiceQuota, VoiceUsage } from './types.js'

/** Refuses a voice of `sampleBytes` that would take its owner past its quota. */
export function checkQuota(usage: VoiceUsage, sampleBytes: number, quota: VoiceQuota): void {
  if (usage.voices + 1 > quota.voices) {
    throw new TtsError('VOICE_QUOTA_EXCEEDED', `this key has ${usage.voices} cloned voices; its quota is ${quota.voices}: delete one to clone another`, { extra: { quota: 'voices', limit: quota.voices } })
  }
  if (usage.sampleBytes + sampleBytes > quota.sampleBytes) {
    throw new TtsError('VOICE_QUOTA_EXCEEDED', `this key's samples take ${usage.sampleBytes} bytes; with this one (${sampleBytes}) they would pass its quota of ${quota.sampleBytes}`, { extra: { quota: 'sample_bytes', limit: quota.sampleBytes } })
  }
}
