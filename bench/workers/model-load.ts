/**
 * One model load in a fresh process (bench/model-load.ts): the stand-in Piper voice as a pack
 * (mode 'pack': the cache at $SVC_TTS_CACHE_DIR, empty or filled by an earlier load; 'uncached':
 * cache: false) or as a bare onnxruntime-node session ('ort'). Prints { ms, loadedFrom? }: the
 * load alone, after the library and ONNX Runtime are in the process.
 */
import { createRequire } from 'node:module'
import { bundledEspeakDataPath, loadNative } from '../../lib/native.js'
import { loadPack } from '../../lib/neural/packs.js'
import { MODEL } from '../harness/neural-stand-in.js'

interface OrtNode {
  InferenceSession: { create(path: string, options: Record<string, unknown>): Promise<unknown> }
}

const mode = process.argv[2]
let line: Record<string, unknown>
if (mode === 'ort') {
  const ort = createRequire(import.meta.url)(process.env.ONNXRUNTIME_NODE ?? 'onnxruntime-node') as OrtNode
  // The pack's session options (native/onnx/runtime.cc BaseOptions) where onnxruntime-node has them.
  const options = { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all', enableMemPattern: false, logSeverityLevel: 3 }
  const start = performance.now()
  await ort.InferenceSession.create(MODEL, options)
  line = { ms: performance.now() - start }
} else {
  const native = loadNative()
  native.onnxRuntimeVersion()
  const espeakDataPath = bundledEspeakDataPath()
  await native.init({ threads: 2, ...(espeakDataPath !== undefined && { espeakDataPath }) })
  const start = performance.now()
  const pack = await loadPack(native, 'standin', { type: 'piper', path: MODEL, cache: mode !== 'uncached' }, { device: 'cpu', threads: 1, warn: () => {} })
  line = { ms: performance.now() - start, loadedFrom: pack.info.loadedFrom }
}
console.log(JSON.stringify(line))
