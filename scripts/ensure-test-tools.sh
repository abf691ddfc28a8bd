#!/usr/bin/env bash
# Installs what the tests drive besides npm packages: sipp (Debian package sip-tester), the SIP
# peer of the SIP node's integration tests, curl for the exchange's Digest tests, and openssl to
# make the certificate of the SIP-over-TLS test's destination, and espeak-ng and sox to speak the
# call scripts the calls pipeline's end-to-end test plays through sipp, and chromium, the browser
# test/browser drives through playwright-core (the share page), and kamailio, the route (a SIP proxy
# that keeps, rewrites, withholds or drops the caller ID) the CLI checks' end-to-end test sends calls through.
# Runs before `npm test`; does nothing when the tools are already there.
set -euo pipefail
missing=()
command -v sipp >/dev/null 2>&1 || missing+=(sip-tester)
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
command -v espeak-ng >/dev/null 2>&1 || missing+=(espeak-ng)
command -v sox >/dev/null 2>&1 || missing+=(sox)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v kamailio >/dev/null 2>&1 || [ -x /usr/sbin/kamailio ] || missing+=(kamailio)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != "0" ]; then
  echo "missing test tools (${missing[*]}): run as root, or: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "installing ${missing[*]} for the tests"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
