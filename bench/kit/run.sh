#!/bin/bash
# On the machine the kit was carried to (bench/kit/make.sh; the repository's root as the working
# directory, the kit in .devkit/, $OUT a folder for the results): the server studies with the
# server on the first CPUs and the client on the rest. WS_CPUS (4) serves bench/studies/server.ts,
# whose sweeps CONTEXTS and SLT_CONTEXTS set; COST_CPUS (2) serves bench/studies/server-cost.ts,
# with VOICES, PASSES and SECONDS_A_CELL; WS_LIMIT and COST_LIMIT bound each in seconds.
set -u
K=$PWD/.devkit
tar -C "$K" -xJf "$K/kit.tar.xz" || exit 1
# The espeak-ng program reads its own libraries; the addon keeps the ones beside it.
mv "$K/espeak/bin/espeak-ng" "$K/espeak/bin/espeak-ng.real"
printf '#!/bin/sh\nd=$(dirname "$0")\nLD_LIBRARY_PATH=$d/../lib exec "$d/espeak-ng.real" "$@"\n' > "$K/espeak/bin/espeak-ng"
chmod +x "$K/espeak/bin/espeak-ng"
export PATH="$K/espeak/bin:$PATH" SVC_TTS_NATIVE_BINDING="$K/release/svc_tts.node" ESPEAK_NG_PATH="$K/release"
LAST=$(($(nproc) - 1))
echo "cpus $((LAST + 1))"; "$K/node" --version; uptime
WS_CPUS=${WS_CPUS:-4}
COST_CPUS=${COST_CPUS:-2}
env SERVER_CPUS="$WS_CPUS" CONTEXTS="${CONTEXTS:-400,800,1200,1600,2000}" SLT_CONTEXTS="${SLT_CONTEXTS:-100,150,200}" RUNS="${RUNS:-20}" \
  timeout "${WS_LIMIT:-160}" taskset -c "$WS_CPUS-$LAST" "$K/node" "$K/bench/studies/server.mjs" > "$OUT/server.txt" 2>&1
echo "server.ts: exit $?"
env SERVER_CPUS="$COST_CPUS" VOICES="${VOICES:-espeak,kal16,slt}" PASSES="${PASSES:-5}" SECONDS="${SECONDS_A_CELL:-1}" \
  timeout "${COST_LIMIT:-300}" taskset -c "$COST_CPUS-$LAST" "$K/node" "$K/bench/studies/server-cost.mjs" > "$OUT/server-cost.txt" 2>&1
echo "server-cost.ts: exit $?"
cp "$K/bench/RESULTS.md" "$OUT/RESULTS.md"
uptime
