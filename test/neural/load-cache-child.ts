/** Loads the Piper pack at argv[2] (the cache at $SVC_TTS_CACHE_DIR) and prints its info's loadedFrom and cacheWhy. */
import { createEngine } from '../../lib/index.js'

const engine = await createEngine({ models: { voice: { type: 'piper', path: process.argv[2]! } } })
const { loadedFrom, cacheWhy } = engine.models.get('voice').pack!.info
console.log(JSON.stringify({ loadedFrom, cacheWhy }))
await engine.close()
