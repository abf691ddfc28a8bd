#!/usr/bin/env bash
# Installs the offline transcription engine that transcriber/ serves: CMU PocketSphinx and its
# US English model from Debian (packages pocketsphinx and pocketsphinx-en-us, about 37 MB
# installed). The tests and the WER bench (transcriber/bench/wer.ts) also need espeak-ng and sox,
# to make speech, and pocketsphinx-testdata, for recorded speech with reference transcripts;
# sphinxbase-utils (sphinx_lm_convert, optional: installed when run as root) turns the phone-call
# language model into the binary form the decoder loads fastest. Then builds that model (transcriber/lm/build.ts: a few seconds, once; again
# only when the corpus or the builder changes) into transcriber/model/.
# Runs before `npm test` and `npm start`; does nothing when all is there. Without root it says what
# is missing and that transcription is off, and fails.
set -euo pipefail
MODEL=/usr/share/pocketsphinx/model/en-us
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The project's pinned Node (22, which runs TypeScript), else the one on the PATH.
NODE="$ROOT/node_modules/.bin/node"
[ -x "$NODE" ] || NODE=node
build_lm() {
  "$NODE" "$ROOT/transcriber/lm/build.ts" >/dev/null ||
    echo "transcriber: could not build the phone-call language model; the general one will be used" >&2
}
missing=()
command -v pocketsphinx_continuous >/dev/null 2>&1 || missing+=(pocketsphinx)
[ -f "$MODEL/en-us/mdef" ] && [ -f "$MODEL/en-us.lm.bin" ] && [ -f "$MODEL/cmudict-en-us.dict" ] || missing+=(pocketsphinx-en-us)
command -v espeak-ng >/dev/null 2>&1 || missing+=(espeak-ng)
command -v sox >/dev/null 2>&1 || missing+=(sox)
[ -f /usr/share/pocketsphinx/test/data/librivox/transcription ] || missing+=(pocketsphinx-testdata)
optional=()
command -v sphinx_lm_convert >/dev/null 2>&1 || optional+=(sphinxbase-utils)
if [ ${#missing[@]} -eq 0 ] && { [ ${#optional[@]} -eq 0 ] || [ "$(id -u)" != "0" ]; }; then
  build_lm
  exit 0
fi
if [ "$(id -u)" != "0" ]; then
  echo "transcriber: missing Debian packages (${missing[*]}): transcription is off." >&2
  echo "  install them as root: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
missing+=("${optional[@]}")
echo "installing ${missing[*]} for the transcriber"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
build_lm
