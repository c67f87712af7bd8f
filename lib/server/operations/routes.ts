/**
 * The operations routes: liveness and readiness probes (no key, no version header: a load
 * balancer or an orchestrator has neither), and the Prometheus metrics (behind a key with the
 * `metrics` scope unless configured public).
 */
import { route, type AnyRoute } from '../routes.js'
import type { ServiceMetrics } from './metrics.js'
import type { Readiness } from './readiness.js'

export interface OperationsSources {
  readiness(): Promise<Readiness>
  metrics: ServiceMetrics | undefined
  metricsPublic: boolean
}

const PROBE = { scope: null, versionRequired: false, concurrent: false, duringShutdown: true } as const

export function operationsRoutes(sources: OperationsSources): AnyRoute[] {
  const routes: AnyRoute[] = [
    route({ ...PROBE, method: 'GET', path: '/healthz', handle: async () => ({ status: 200, json: { status: 'ok' } }) }),
    route({
      ...PROBE,
      method: 'GET',
      path: '/readyz',
      handle: async () => {
        const state = await sources.readiness()
        return { status: state.ready ? 200 : 503, headers: { 'cache-control': 'no-store' }, json: state }
      },
    }),
  ]
  const { metrics } = sources
  if (metrics) {
    routes.push(
      route({
        method: 'GET',
        path: '/metrics',
        scope: sources.metricsPublic ? null : 'metrics',
        versionRequired: false,
        concurrent: false,
        duringShutdown: true,
        handle: async () => {
          const { contentType, body } = await metrics.scrape()
          return { status: 200, headers: { 'content-type': contentType }, body: Buffer.from(body) }
        },
      }),
    )
  }
  return routes
}
