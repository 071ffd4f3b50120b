#!/usr/bin/env bash
# Issue 37's ten million devices as ten shards of a million: runs each shard of fleet-10m.json in
# turn (as ten machines would, one each), prints each one's wall time and peak memory, then merges
# them and prints the merged summary. Needs a release build (swift build -c release) and GNU time
# (/usr/bin/time). About 25 minutes on 2 cores; pass a shard count under 10 (e.g. 2) to run only
# the first shards and skip the merge.
set -euo pipefail
cd "$(dirname "$0")/../.."
binary=.build/release/syncsim
shards=${1:-10}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for index in $(seq 1 "$shards"); do
  /usr/bin/time -f "%e %M" -o "$out/time" \
    $binary run Scripts/fleet/fleet-10m.json --shard "$index/10" --out "$out/shards/$index" > "$out/stdout"
  read -r seconds kilobytes < "$out/time"
  events=$(grep -o '[0-9]* events' "$out/stdout" | head -1 || true)
  printf 'shard %2d/10 of fleet-10m.json %8.1f s %8.0f MB  %s\n' "$index" "$seconds" "$((kilobytes / 1024))" "$events"
done
if [[ "$shards" == 10 ]]; then
  /usr/bin/time -f "%e %M" -o "$out/time" $binary merge "$out"/shards/* --out "$out/merged"
  read -r seconds kilobytes < "$out/time"
  printf 'merge of the 10 shards %22.1f s %8.0f MB\n' "$seconds" "$((kilobytes / 1024))"
  cat "$out/merged/summary.csv"
fi
