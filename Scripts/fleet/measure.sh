#!/usr/bin/env bash
# Issue 19's fleet figures: 100,000 and 1,000,000 devices for a day through `bench fleet` and through
# `run` (summary only), wall time and peak memory, and `bench fleet --jobs 1` against `--jobs 2`.
# Needs a release build (swift build -c release) and GNU time (/usr/bin/time). About 15 minutes on
# 2 cores; pass --quick to leave out the million-device runs (about 2 minutes).
set -euo pipefail
cd "$(dirname "$0")/../.."
binary=.build/release/syncsim
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
measure() {  # label, command...
  local label=$1
  shift
  /usr/bin/time -f "%e %M" -o "$out/time" "$@" > "$out/stdout"
  read -r seconds kilobytes < "$out/time"
  printf '%-42s %8.1f s %8.0f MB\n' "$label" "$seconds" "$((kilobytes / 1024))"
}
measure "bench fleet, 100,000 devices, 2 jobs" $binary bench fleet --accounts 50000 --jobs 2
measure "bench fleet, 100,000 devices, 1 job" $binary bench fleet --accounts 50000 --jobs 1
measure "run fleet-100k.json (summary only)" $binary run Scripts/fleet/fleet-100k.json --out "$out/r100k"
# Issue 37's throttled container at 100,000 devices (coupled: one kernel). 6.1 s and 711 MiB on
# 2 cores (2026-11-25).
measure "run throttle-100k.json (summary only)" $binary run Scripts/fleet/throttle-100k.json --out "$out/t100k"
# Issue 37's public-database app at 100,000 installs (coupled: one kernel). 161 s and 6.5 GiB with
# --accept-large before its readers replayed their copies; 5.0 s and 310 MiB since its authors
# did too; 4.3 s and 210 MiB since devices share their traits (2026-11-25).
measure "run public-100k.json (summary only)" $binary run Scripts/fleet/public-100k.json --out "$out/p100k"
if [[ "${1:-}" != "--quick" ]]; then
  measure "bench fleet, 1,000,000 devices" $binary bench fleet --accounts 500000
  measure "run fleet-1m.json (summary only)" $binary run Scripts/fleet/fleet-1m.json --out "$out/r1m"
  # Issue 37's public-database app at a million installs (coupled: one kernel). 270 s and
  # 6.23 GiB with --accept-large; 247 s and 2.98 GiB since the recorder packs its page log and
  # devices share their workloads; 267 s and 2.26 GiB, within the estimate's limits, since
  # devices share their traits and activities take 48 B (2026-11-25).
  measure "run public-1m.json (summary only)" $binary run Scripts/fleet/public-1m.json --out "$out/p1m"
fi
