#!/usr/bin/env node
// npm install hook: use a prebuilt addon when one loads on this machine, else build from source.
const { spawnSync } = require('node:child_process')
const path = require('node:path')

const root = path.resolve(__dirname, '..')
try {
  require('node-gyp-build')(root)
  process.exit(0)
} catch {
  // ONNX Runtime's headers and library come from the npm registry (third_party/, gitignored).
  const fetched = spawnSync('sh', [path.join(root, 'scripts/fetch-onnxruntime.sh')], { cwd: root, stdio: 'inherit' })
  if (fetched.status !== 0) process.exit(fetched.status ?? 1)
  const cmakeJs = require.resolve('cmake-js/bin/cmake-js')
  const result = spawnSync(process.execPath, [cmakeJs, 'compile'], { cwd: root, stdio: 'inherit' })
  process.exit(result.status ?? 1)
}
