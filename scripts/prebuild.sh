#!/bin/sh
# Builds the addon from source and lays out prebuilds/<platform>-<arch>/ for the package: the
# stripped .node, the shared libraries the build copied beside it (prebuildify takes every .so it
# finds in build/Release), and espeak-ng's data. `npm pack` runs it (prepack).
set -eu
cd "$(dirname "$0")/.."
sh scripts/fetch-onnxruntime.sh
prebuildify --napi --strip --tag-libc --node-gyp=scripts/cmake-js-as-node-gyp.sh
dir="prebuilds/$(node -p "process.platform + '-' + process.arch")"
rm -rf "$dir/espeak-ng-data"
cp -R build/Release/espeak-ng-data "$dir/"
