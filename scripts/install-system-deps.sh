#!/bin/sh
# Debian/Ubuntu packages svc-tts builds and runs with (and sox and ffmpeg, which the tests use
# to read audio back, ffmpeg for MP3, Ogg Opus and FLAC, and the flite program, whose output the
# tests compare ours with). Uses sudo only when not already root.
set -eu
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends \
  cmake ninja-build g++ make pkg-config python3 \
  libespeak-ng-dev espeak-ng-data flite1-dev libsoxr-dev \
  libsndfile1-dev libaubio-dev librubberband-dev \
  libmp3lame-dev libopus-dev libogg-dev libflac-dev \
  sox flite ffmpeg
