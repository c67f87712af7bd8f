#!/bin/sh
# Packs what the server studies need on a machine with nothing installed (a lent machine: no Node,
# no npm, no Debian packages) into .devkit/: Node itself, the addon and its libraries, the espeak-ng
# program with its libraries, better-sqlite3, and the studies and their workers bundled by esbuild.
# There, from the repository's root: bash bench/kit/run.sh (see its head for the settings).
set -eu
cd "$(dirname "$0")/../.."
staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
mkdir -p .devkit "$staging/espeak/bin" "$staging/espeak/lib" "$staging/release" "$staging/node_modules"
cp "$(command -v node)" "$staging/node"
cp -L build/Release/*.so* build/Release/svc_tts.node "$staging/release/"
cp -r build/Release/espeak-ng-data "$staging/release/"
cp "$(command -v espeak-ng)" "$staging/espeak/bin/espeak-ng"
# Its libraries, but not the C and C++ runtimes every machine has.
for lib in $(ldd "$(command -v espeak-ng)" | awk '/=>/ { print $3 }' | grep -v -E 'lib(c|m|stdc\+\+|gcc_s|pthread|dl)\.so'); do cp -L "$lib" "$staging/espeak/lib/"; done
for module in better-sqlite3 bindings file-uri-to-path; do mkdir -p "$staging/node_modules/$module"; done
cp -r node_modules/better-sqlite3/package.json node_modules/better-sqlite3/lib "$staging/node_modules/better-sqlite3/"
mkdir -p "$staging/node_modules/better-sqlite3/build/Release"
cp node_modules/better-sqlite3/build/Release/better_sqlite3.node "$staging/node_modules/better-sqlite3/build/Release/"
cp -r node_modules/bindings/. "$staging/node_modules/bindings/"
cp -r node_modules/file-uri-to-path/. "$staging/node_modules/file-uri-to-path/"
# One file a study or worker, each beside the others as in bench/ (a study finds its workers by its own extension).
npx esbuild bench/studies/server.ts bench/studies/server-cost.ts bench/workers/server-host.ts bench/workers/serve-cost-host.ts \
  bench/workers/http-floor-host.ts bench/workers/stream-loop-host.ts --bundle --format=esm --platform=node --target=node20 \
  --outbase=bench --outdir="$staging/bench" --out-extension:.js=.mjs --external:'*.node' --log-level=warning \
  --banner:js="import { createRequire as __kitRequire } from 'node:module'; const require = __kitRequire(import.meta.url);"
tar -C "$staging" -cJf .devkit/kit.tar.xz .
ls -l .devkit/kit.tar.xz
