#!/usr/bin/env bash
# Installs the offline transcription engine that transcriber/ serves: CMU PocketSphinx and its
# US English model from Debian (packages pocketsphinx and pocketsphinx-en-us, about 37 MB
# installed). The tests and the WER bench (transcriber/bench/wer.ts) also need espeak-ng and sox,
# to make speech, and pocketsphinx-testdata, for recorded speech with reference transcripts.
# Runs before `npm test`; does nothing when all is there. Without root it says what is missing
# and that transcription is off, and fails.
set -euo pipefail
MODEL=/usr/share/pocketsphinx/model/en-us
missing=()
command -v pocketsphinx_continuous >/dev/null 2>&1 || missing+=(pocketsphinx)
[ -f "$MODEL/en-us/mdef" ] && [ -f "$MODEL/en-us.lm.bin" ] && [ -f "$MODEL/cmudict-en-us.dict" ] || missing+=(pocketsphinx-en-us)
command -v espeak-ng >/dev/null 2>&1 || missing+=(espeak-ng)
command -v sox >/dev/null 2>&1 || missing+=(sox)
[ -f /usr/share/pocketsphinx/test/data/librivox/transcription ] || missing+=(pocketsphinx-testdata)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != "0" ]; then
  echo "transcriber: missing Debian packages (${missing[*]}): transcription is off." >&2
  echo "  install them as root: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "installing ${missing[*]} for the transcriber"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
