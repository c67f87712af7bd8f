/**
 * Event-loop responsiveness as a server would feel it: a timer re-armed every few milliseconds
 * records how late it fires. Lateness is what every other request on the loop would wait.
 */
import { quantile } from './stats.js'

export interface LagSummary {
  worstMs: number
  p99Ms: number
  samples: number
}

const INTERVAL_MS = 2

export class TimerLagMonitor {
  private lags: number[] = []
  private timer: NodeJS.Timeout | undefined
  private dueAt = 0

  start(): void {
    this.lags = []
    this.arm()
  }

  stop(): LagSummary {
    clearTimeout(this.timer)
    return { worstMs: Math.max(0, ...this.lags), p99Ms: quantile(this.lags, 0.99), samples: this.lags.length }
  }

  private arm(): void {
    this.dueAt = performance.now() + INTERVAL_MS
    this.timer = setTimeout(() => {
      this.lags.push(Math.max(0, performance.now() - this.dueAt))
      this.arm()
    }, INTERVAL_MS)
  }
}
