#!/bin/sh
# What `npm run bench` needs beyond scripts/install-system-deps.sh: the espeak-ng program (its CLI
# baseline) and pocketsphinx with its US English model (the word-error-rate harness).
set -eu
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get install -y -qq --no-install-recommends espeak-ng pocketsphinx pocketsphinx-en-us
