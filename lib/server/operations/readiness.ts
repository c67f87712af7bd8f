/**
 * What /readyz reports: whether a load balancer should send this replica traffic. Ready once the
 * engine is made (its model packs loaded and warmed), while its voice store answers, and until a
 * shutdown begins (draining: requests are still served while balancers notice the 503).
 */
import type { Engine } from '../../engine/engine.js'

export type EngineState = 'loading' | 'loaded' | 'failed'

export interface Readiness {
  ready: boolean
  status: 'ready' | 'starting' | 'draining' | 'closing' | 'failed' | 'unavailable'
  checks: { engine: EngineState; voice_store: 'ok' | 'unreachable' | 'unchecked' }
}

export interface ReadinessSources {
  engineState(): EngineState
  engine(): Engine<string> | undefined
  draining(): boolean
  closing(): boolean
}

export async function readiness(sources: ReadinessSources): Promise<Readiness> {
  const state = sources.engineState()
  const engine = sources.engine()
  let store: Readiness['checks']['voice_store'] = 'unchecked'
  if (engine) {
    try {
      await engine.voices.list({ limit: 1, voice_type: 'CUSTOM' })
      store = 'ok'
    } catch {
      store = 'unreachable'
    }
  }
  const checks = { engine: state, voice_store: store }
  const status: Readiness['status'] = sources.closing()
    ? 'closing'
    : sources.draining()
      ? 'draining'
      : state === 'loading'
        ? 'starting'
        : state === 'failed'
          ? 'failed'
          : store !== 'ok'
            ? 'unavailable'
            : 'ready'
  return { ready: status === 'ready', status, checks }
}
