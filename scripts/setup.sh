#!/bin/sh
# Everything a fresh Debian/Ubuntu machine needs to build and run svc-tts from this checkout:
# the Debian packages, then the npm dependencies (which build the addon and the TypeScript).
set -eu
cd "$(dirname "$0")/.."
sh scripts/install-system-deps.sh
# better-sqlite3 compiles from source where its prebuilt binary cannot be downloaded; node-gyp then
# needs Node's headers. The installed Node ships them: point node-gyp there, not at the network.
prefix=$(node -p "require('path').resolve(process.execPath, '../..')")
if [ -z "${npm_config_nodedir:-}" ] && [ -f "$prefix/include/node/node.h" ]; then
  export npm_config_nodedir="$prefix"
fi
npm ci
