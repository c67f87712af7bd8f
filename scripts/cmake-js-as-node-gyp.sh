#!/bin/sh
# prebuildify only knows node-gyp: translate its arguments into a cmake-js rebuild.
set -e
cfg=""; arch=""
for a in "$@"; do
  case "$a" in
    --debug) cfg="--debug" ;;
    --arch=*) arch="--arch=${a#--arch=}" ;;
  esac
done
exec cmake-js rebuild $cfg $arch
