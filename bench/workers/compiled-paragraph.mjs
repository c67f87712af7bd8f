// Child of bench/neural-packs.ts: the paragraph run as a user runs the package, from the compiled
// dist/ (no TypeScript loader in the process), for its peak RSS. Reads { model, warmUp, paragraph }
// as JSON on stdin; prints { peakRssMib, startRssMib }.
import { readFileSync } from 'node:fs'

const startRssMib = process.memoryUsage.rss() / 2 ** 20
const { model, warmUp, paragraph } = JSON.parse(readFileSync(0, 'utf8'))
const { createEngine } = await import('../../dist/index.js')
const engine = await createEngine({ models: { 'svc_pro_v1.0': { type: 'piper', path: model } }, modelThreads: 1 })
const voice = (await engine.voices.list({ limit: 100 })).voices.find((v) => v.name.startsWith('default (')).voice_id
const speak = async (transcript) => {
  for await (const chunk of engine.speak({ model_id: 'svc_pro_v1.0', transcript, voice: { mode: 'id', id: voice } })) void chunk
}
for (let i = 0; i < 3; i++) await speak(warmUp)
await speak(paragraph)
console.log(JSON.stringify({ peakRssMib: process.resourceUsage().maxRSS / 1024, startRssMib }))
await engine.close()
