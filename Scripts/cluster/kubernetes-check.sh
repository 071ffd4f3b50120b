#!/usr/bin/env bash
# The documented Kubernetes Indexed Job (Scripts/cluster/kubernetes-sweep.yaml), run as
# Kubernetes would run it, without Kubernetes (CI has none): for each completion index from 0 to
# `completions` - 1, the container's command and args exactly as the manifest spells them, under
# /bin/sh -c with JOB_COMPLETION_INDEX set and `syncsim` on PATH, the shared volume's /results
# mapped to a scratch folder. Then `merge` of every shard, compared byte for byte with the
# unsharded sweep. One index is run twice, as a pod restarted after it finished is, to show the
# second attempt writes the same shard (a pod killed mid-shard resumes from its finished runs:
# Scripts/kill-check.py and Scripts/slurm-check.sh show that). Checks the manifest's own promises too: an
# Indexed Job whose --shards equals its completions. Exit 1 on any failure.
#
# Usage: bash Scripts/cluster/kubernetes-check.sh [path/to/syncsim] [SEEDS (default 1..20)]
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
syncsim=${1:-$root/.build/release/syncsim}
seeds=${2:-1..20}
[ -x "$syncsim" ] || { echo "kubernetes-check: no $syncsim (build it first: swift build -c release)" >&2; exit 1; }
syncsim=$(cd "$(dirname "$syncsim")" && pwd)/$(basename "$syncsim")
manifest=$root/Scripts/cluster/kubernetes-sweep.yaml
fail() { echo "kubernetes-check: FAIL: $*" >&2; exit 1; }

work=$(mktemp -d /tmp/kubernetes-check.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/results"
ln -s "$syncsim" "$work/bin/syncsim"

grep -q '^  completionMode: Indexed$' "$manifest" || fail "the manifest is not an Indexed Job"
completions=$(sed -n 's/^  completions: \([0-9]*\)$/\1/p' "$manifest")
[ -n "$completions" ] || fail "no completions in the manifest"
# The args: the folded block after `- >-`, up to the next key, joined as YAML folds it.
args=$(awk '/^            - >-$/{inside=1; next} inside && /^              /{sub(/^ +/, ""); line = line (line ? " " : "") $0; next} inside{exit} END{print line}' "$manifest")
[ -n "$args" ] || fail "no container args in the manifest"
shards=$(printf '%s\n' "$args" | sed -n 's/.*--shards \([0-9]*\).*/\1/p')
[ "$shards" = "$completions" ] || fail "--shards $shards in the args, completions $completions"
# The seeds shrink for CI (the manifest's 1..200 is a real cluster's load); everything else as written.
command=$(printf '%s\n' "$args" | sed "s|/results|$work/results|g; s|--seeds [^ ]*|--seeds $seeds|")
echo "kubernetes-check: $completions pods of: $command"

cd "$root"
for index in $(seq 0 $((completions - 1))); do
  JOB_COMPLETION_INDEX=$index PATH="$work/bin:$PATH" /bin/sh -c "$command" >"$work/pod-$index.log" 2>&1 \
    || fail "pod $index exited $? ($(tail -n 2 "$work/pod-$index.log"))"
  grep -q "chosen by JOB_COMPLETION_INDEX" "$work/pod-$index.log" || fail "pod $index: the shard was not taken from JOB_COMPLETION_INDEX"
done
# A pod started again with the same index writes the same shard.
before=$(cksum <"$work/results/shards/0/sweep.csv")
JOB_COMPLETION_INDEX=0 PATH="$work/bin:$PATH" /bin/sh -c "$command" >"$work/pod-0-again.log" 2>&1 || fail "pod 0, again"
[ "$(cksum <"$work/results/shards/0/sweep.csv")" = "$before" ] || fail "pod 0's second attempt changed its shard"

"$syncsim" merge "$work"/results/shards/* --out "$work/results/merged" >"$work/merge.log" 2>&1 || fail "merge: $(cat "$work/merge.log")"
whole=$(printf '%s\n' "$command" | sed "s| --shards [0-9]*||; s|--out [^ ]*|--out $work/whole|")
/bin/sh -c "PATH=$work/bin:\$PATH $whole" >"$work/whole.log" 2>&1 || fail "the unsharded sweep: $(tail -n 2 "$work/whole.log")"
for file in sweep.csv sweep-summary.csv datapackage.json; do
  cmp -s "$work/whole/$file" "$work/results/merged/$file" || fail "merged $file differs from the unsharded sweep's"
done
runs=$(($(wc -l <"$work/results/merged/sweep.csv") - 1))
echo "kubernetes-check: ok ($completions indexed pods and one pod again; merge equal to the unsharded sweep, $runs rows)"
