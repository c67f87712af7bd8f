#!/bin/sh
# The Debian/Ubuntu packages svc-tts builds, tests and benchmarks with. Every program the tests,
# the bench and the scripts run comes from here (scripts/programs.txt names each one's package).
#   build: compilers, cmake, python3 for node-gyp, the -dev packages of the libraries linked in
#   tests: sox and ffmpeg read audio back (ffmpeg for MP3, Ogg Opus and FLAC); the flite and
#     espeak-ng programs, whose output the tests compare ours with
#   shared stores: postgresql and haproxy (the tests start their own servers on loopback)
#   the playground's test: Debian's chromium, driven by playwright-core
#   bench: pocketsphinx and its English model (word error rate), GNU time (the programs' peak
#     memory), perf (where the server's main thread spends its CPU), numpy and onnx for the
#     Python generators of fixture and bench models
# Uses sudo only when not already root.
set -eu
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends \
  cmake ninja-build g++ gcc make binutils pkg-config python3 \
  libespeak-ng-dev espeak-ng-data flite1-dev libsoxr-dev \
  libsndfile1-dev libaubio-dev librubberband-dev \
  libmp3lame-dev libopus-dev libogg-dev libflac-dev \
  sox flite espeak-ng ffmpeg util-linux mount \
  pocketsphinx pocketsphinx-en-us time linux-perf strace python3-numpy python3-onnx \
  postgresql haproxy redis-server chromium
