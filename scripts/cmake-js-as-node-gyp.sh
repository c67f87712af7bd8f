#!/bin/sh
# prebuildify only knows node-gyp: translate its arguments into a cmake-js build. An incremental
# compile, not a rebuild: CMake tracks every input, and build/Release stays what the tests ran.
set -e
cfg=""; arch=""
for a in "$@"; do
  case "$a" in
    --debug) cfg="--debug" ;;
    --arch=*) arch="--arch=${a#--arch=}" ;;
  esac
done
exec cmake-js compile $cfg $arch
