/**
 * A child process for the durability test: clones and updates voices in <dataDir> in a loop and
 * prints each change once the engine has acknowledged it, until it is killed.
 */
import { readFileSync } from 'node:fs'
import { createEngine } from '../../lib/index.js'

const [dataDir, samplePath] = process.argv.slice(2) as [string, string]
const engine = await createEngine({ dataDir })
const sample = readFileSync(samplePath)
for (let round = 0; ; round++) {
  const voice = await engine.voices.clone(sample, { name: `clone-${round}`, language: 'en' })
  process.stdout.write(`created ${voice.voice_id}\n`)
  for (let n = 1; n <= 50; n++) {
    await engine.voices.update(voice.voice_id, { name: `clone-${round}-${n}`, description: 'x'.repeat(n * 10) })
    process.stdout.write(`updated ${voice.voice_id} ${n}\n`)
  }
}
