#!/bin/sh
# Fetches the ONNX Runtime C/C++ headers and Linux x64 CPU library into third_party/onnxruntime/
# (gitignored) from the npm registry: headers and library come from one package, so they are the
# same release (ORT 1.29.0, API 29). Skips the work when the files are already there.
# NATIVE.md part A explains the choice of package.
set -eu
PKG=com.github.asus4.onnxruntime@0.4.9
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT="$ROOT/third_party/onnxruntime"
if [ -f "$OUT/include/onnxruntime_cxx_api.h" ] && [ -f "$OUT/lib/libonnxruntime.so.1" ]; then exit 0; fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
TGZ=$(cd "$TMP" && npm pack "$PKG" --silent 2>/dev/null | tail -n1)
H='package/Plugins/iOS~/onnxruntime.xcframework/ios-arm64/onnxruntime.framework/Headers'
L='package/Plugins/Linux/x64'
tar -xzf "$TMP/$TGZ" -C "$TMP" \
  "$H/onnxruntime_c_api.h" "$H/onnxruntime_cxx_api.h" "$H/onnxruntime_cxx_inline.h" \
  "$H/onnxruntime_float16.h" "$H/onnxruntime_ep_c_api.h" "$H/onnxruntime_error_code.h" \
  "$H/onnxruntime_session_options_config_keys.h" "$H/onnxruntime_run_options_config_keys.h" \
  "$L/libonnxruntime.so" "$L/libonnxruntime_providers_shared.so"
mkdir -p "$OUT/include" "$OUT/lib"
cp "$TMP/$H"/*.h "$OUT/include/"
# The file is named libonnxruntime.so but its SONAME is libonnxruntime.so.1: the loader looks for that.
cp "$TMP/$L/libonnxruntime.so" "$OUT/lib/libonnxruntime.so.1"
cp "$TMP/$L/libonnxruntime_providers_shared.so" "$OUT/lib/"
