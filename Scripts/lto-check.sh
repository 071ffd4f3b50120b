#!/usr/bin/env bash
# Builds syncsim with link-time optimisation (the README's faster build, into .build-lto) and checks
# that it computes what the plain release build does: `check` against the committed results, and
# the peer fleet's result files (summary, latency rows, resolved scenario, datapackage) compared
# byte for byte with the plain build's. Run from the repository's root after `swift build -c release`.
set -euo pipefail
cd "$(dirname "$0")/.."
plain=.build/release/syncsim
[ -x "$plain" ] || swift build -c release
swift build -c release --experimental-lto-mode=full --build-path .build-lto
lto=.build-lto/release/syncsim
"$lto" check > .build-lto/check.txt || { tail -20 .build-lto/check.txt >&2; echo "lto-check: check failed" >&2; exit 1; }
tail -1 .build-lto/check.txt
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$plain" run Scripts/peer/peer-fleet.json --seed 1 --out "$work/plain" > /dev/null
"$lto" run Scripts/peer/peer-fleet.json --seed 1 --out "$work/lto" > /dev/null
for file in summary.csv latency.csv resolved.json datapackage.json; do
  cmp "$work/plain/$file" "$work/lto/$file" || { echo "lto-check: $file differs" >&2; exit 1; }
done
echo "lto-check: the LTO build's check and peer fleet files equal the plain build's"
