/**
 * Run inside a mount namespace of its own with a small (or read-only) tmpfs at `dir`
 * (pull.test.ts): pulls one pack from the local hub and prints what happened as one JSON line.
 */
import { existsSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { listInstalledModels, pullModels } from '../../../../lib/neural/index.js'

const [endpoint, dir, name] = process.argv.slice(2) as [string, string, string]
let outcome: Record<string, unknown>
try {
  await pullModels([name], { modelsDir: dir, endpoint })
  outcome = { ok: true }
} catch (error) {
  const { code, status } = error as { code?: string; status?: number }
  outcome = { code, status }
}
const pulls = path.join(dir, '.pulls')
outcome.installed = listInstalledModels(dir).map((model) => model.name)
outcome.entries = readdirSync(dir).sort()
outcome.work = existsSync(pulls) ? readdirSync(pulls) : []
process.stdout.write(`${JSON.stringify(outcome)}\n`)
