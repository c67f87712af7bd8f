#!/usr/bin/env node
// npm install hook: use the prebuilt addon when it loads on this machine, else build from source
// (`npm rebuild svc-tts --build-from-source` builds even where the prebuilt one would load). When a
// library is missing, CMake names the Debian packages to install.
const { spawnSync } = require('node:child_process')
const { existsSync } = require('node:fs')
const path = require('node:path')

const root = path.resolve(__dirname, '..')
// Where lib/native.ts looks: a local build first, then the prebuilt addon for this platform.
const built = path.join(root, 'build/Release/svc_tts.node')
const addon = existsSync(built) ? built : path.join(root, 'prebuilds', `${process.platform}-${process.arch}`, 'svc-tts.glibc.node')
if (process.env.npm_config_build_from_source !== 'true') {
  try {
    process.dlopen({ exports: {} }, addon)
    process.exit(0)
  } catch {
    console.error('svc-tts: no prebuilt addon loads on this machine; building it from source')
  }
}
// ONNX Runtime's headers and library come from the npm registry (third_party/, gitignored).
const fetched = spawnSync('sh', [path.join(root, 'scripts/fetch-onnxruntime.sh')], { cwd: root, stdio: 'inherit' })
if (fetched.status !== 0) process.exit(fetched.status ?? 1)
const cmakeJs = require.resolve('cmake-js/bin/cmake-js')
const result = spawnSync(process.execPath, [cmakeJs, 'compile'], { cwd: root, stdio: 'inherit' })
process.exit(result.status ?? 1)
