#!/usr/bin/env bash
# The documented Slurm recipes, on a real Slurm cluster of this one machine (issue 59).
#
# Installs Debian's slurm-wlm (slurmctld, slurmd, munge) when missing, starts a single-node
# cluster whose node has this machine's CPUs, and submits job arrays whose tasks take their shard
# from Slurm's own variables (no --shard on their command lines):
#   1. a sweep in 8 shards (an array from 0), merged, equal byte for byte to the unsharded sweep;
#   2. an independent-account run in 4 shards (an array from 1), merged, equal to the unsharded run;
#   3. a sweep in 4 shards of which one task is cancelled while it runs (after its first finished
#      run): merge then names the missing shard and the command that runs it; that command,
#      submitted as a job, keeps the finished runs (resume) and completes the set, which merges
#      equal to the unsharded sweep;
#   4. the peer fleet's run in 2 shards of which one task is cancelled once its journal has a
#      checkpoint: resubmitted, it goes on from the parts that checkpoint counts, and the merge
#      equals the unsharded run.
# It stops the daemons it started and removes its files. Where the package cannot be installed it
# prints one SKIP line saying why and exits 0; any other failure exits 1.
#
# Usage: bash Scripts/slurm-check.sh [path/to/syncsim]
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
syncsim=${1:-$root/.build/release/syncsim}
[ -x "$syncsim" ] || { echo "slurm-check: no $syncsim (build it first: swift build -c release)" >&2; exit 1; }
# The jobs run in the cluster's own folder: the binary by its absolute path.
syncsim=$(cd "$(dirname "$syncsim")" && pwd)/$(basename "$syncsim")

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
  if ! command -v apt-get >/dev/null; then
    echo "SKIP slurm-check: slurm-wlm is not installed and there is no apt-get to install it"
    exit 0
  fi
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm >/tmp/slurm-check-install.log 2>&1; then
    echo "SKIP slurm-check: apt-get could not install slurm-wlm: $(tail -n 1 /tmp/slurm-check-install.log)"
    exit 0
  fi
fi

fail() { echo "slurm-check: FAIL: $*" >&2; exit 1; }

work=$(mktemp -d /tmp/slurm-check.XXXXXX)
started_munge=""
ctld_pid=""
slurmd_pid=""
cleanup() {
  set +e
  [ -n "$slurmd_pid" ] && kill "$slurmd_pid" 2>/dev/null
  [ -n "$ctld_pid" ] && kill "$ctld_pid" 2>/dev/null
  for pid in $slurmd_pid $ctld_pid; do
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
  done
  [ -n "$started_munge" ] && kill "$started_munge" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# munge: the key, and the daemon unless one runs already.
if [ ! -s /etc/munge/munge.key ]; then
  mkdir -p /etc/munge
  dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
  chown munge:munge /etc/munge/munge.key 2>/dev/null || true
  chmod 400 /etc/munge/munge.key
fi
munge_works() { munge -n 2>/dev/null | unmunge >/dev/null 2>&1; }
if ! munge_works; then
  mkdir -p /run/munge
  chown munge:munge /run/munge 2>/dev/null || true
  munged --force >/dev/null 2>&1 || fail "munged did not start"
  for _ in $(seq 1 50); do munge_works && break; sleep 0.1; done
  munge_works || fail "munged started but does not answer"
  started_munge=$(cat /run/munge/munged.pid 2>/dev/null || pgrep -x munged | head -n 1)
fi

node=$(hostname -s)
cpus=$(nproc)
mkdir -p "$work/state" "$work/spool" "$work/log" "$work/out"
cat >"$work/slurm.conf" <<EOF
ClusterName=syncsim
SlurmctldHost=$node
SlurmUser=root
SlurmdUser=root
SlurmctldPort=46817
SlurmdPort=46818
AuthType=auth/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$work/log/jobcomp.txt
MpiDefault=none
ReturnToService=2
NodeName=$node CPUs=$cpus State=UNKNOWN
PartitionName=sim Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$work/slurm.conf
slurmctld -D -f "$SLURM_CONF" >"$work/log/slurmctld.out" 2>&1 &
ctld_pid=$!
slurmd -D -f "$SLURM_CONF" >"$work/log/slurmd.out" 2>&1 &
slurmd_pid=$!
for _ in $(seq 1 100); do
  sinfo -h -o '%T' 2>/dev/null | grep -q '^idle' && break
  sleep 0.2
done
sinfo -h -o '%T' | grep -q '^idle' || fail "the node never came up: $(tail -n 3 "$work/log/slurmctld.log")"
echo "slurm-check: a cluster of 1 node ($node, $cpus CPUs), slurm $(slurmctld -V | awk '{print $2}')"

cd "$work"
# Waits for job $1 to leave the queue, then prints each task's state from the completion log.
wait_job() {
  local job=$1
  for _ in $(seq 1 1200); do
    [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break
    sleep 0.25
  done
  [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] || fail "job $job still queued after 5 minutes"
  sleep 0.3
  { grep "ArrayJobId=$job " log/jobcomp.txt || true; } | sed -E 's/.*JobState=([A-Z]+).* ArrayTaskId=([0-9]+).*ExitCode=([0-9:]+).*/  task \2: \1 (exit \3)/' | sort -t' ' -k4n
}
states() { grep -c "JobState=$2 .*ArrayJobId=$1 " log/jobcomp.txt || true; }

# The job scripts are the documented ones (Scripts/cluster/*.sbatch); SYNCSIM names the binary.
export SYNCSIM=$syncsim
cluster=$root/Scripts/cluster

# 1. A sweep in 8 shards: an array from 0, each task's shard from SLURM_ARRAY_TASK_*.
sweep_options=(--set duration=6h --seeds 1..16)
job=$(sbatch --parsable --array=0-7 --cpus-per-task=1 --output=out/sweep-%a.log \
  "$cluster/slurm-sweep.sbatch" "$root/Scenarios/push-drop-sweep.json" shards/sweep "${sweep_options[@]}")
echo "slurm-check: sweep, job array $job (0-7) of Scripts/cluster/slurm-sweep.sbatch submitted"
wait_job "$job"
[ "$(states "$job" COMPLETED)" = 8 ] || fail "not every sweep task completed: $(cat out/sweep-*.log)"
grep -h "chosen by SLURM_ARRAY_TASK_ID" out/sweep-*.log | sed 's/^/  /' | head -n 2
"$syncsim" merge shards/sweep/* --out merged-sweep >/dev/null
"$syncsim" sweep "$root/Scenarios/push-drop-sweep.json" "${sweep_options[@]}" --out whole-sweep >/dev/null
diff -r merged-sweep whole-sweep >/dev/null || fail "the merged sweep differs from the unsharded one"
echo "slurm-check: 8 shards merged: $(wc -l <merged-sweep/sweep.csv) rows, identical to the unsharded sweep"

# 2. An independent-account run in 4 shards: an array from 1.
job=$(sbatch --parsable --array=1-4 --cpus-per-task=1 --output=out/run-%a.log \
  "$cluster/slurm-run.sbatch" "$root/Scenarios/households.json" shards/run)
echo "slurm-check: run, job array $job (1-4) of Scripts/cluster/slurm-run.sbatch submitted"
wait_job "$job"
[ "$(states "$job" COMPLETED)" = 4 ] || fail "not every run task completed: $(cat out/run-*.log)"
"$syncsim" merge shards/run/* --out merged-run >/dev/null
# A run's exit is 1 when its expectations fail on the whole: a shard does not evaluate them.
"$syncsim" run "$root/Scenarios/households.json" --out whole-run >/dev/null || true
diff -r merged-run whole-run >/dev/null || fail "the merged run differs from the unsharded one"
echo "slurm-check: 4 run shards merged, identical to the unsharded run ($(ls merged-run | tr '\n' ' '))"

# 3. A task cancelled while it runs, then the command merge names, submitted as a job.
slow_options=(--set duration=200d --seeds 1..16)
job=$(sbatch --parsable --array=1-4 --cpus-per-task=1 --output=out/slow-%a.log \
  "$cluster/slurm-sweep.sbatch" "$root/Scenarios/quickstart.json" shards/slow "${slow_options[@]}")
echo "slurm-check: slow sweep, job array $job (1-4) submitted"
for _ in $(seq 1 400); do
  squeue -h -j "${job}_3" -o '%T' 2>/dev/null | grep -q RUNNING && break
  sleep 0.05
done
squeue -h -j "${job}_3" -o '%T' | grep -q RUNNING || fail "task 3 never ran"
# Let it finish a run or two of its four, so that the resubmission has some to keep.
for _ in $(seq 1 100); do
  [ "$(ls shards/slow/3.resume 2>/dev/null | grep -c '^run-')" -ge 1 ] && break
  sleep 0.1
done
squeue -h -j "${job}_3" -o '%T' | grep -q RUNNING || fail "task 3 ended before it could be cancelled"
scancel "${job}_3"
echo "slurm-check: task 3 cancelled while running, $(ls shards/slow/3.resume | grep -c '^run-') of its 4 runs finished"
wait_job "$job"
[ "$(states "$job" CANCELLED)" = 1 ] || fail "task 3 was not cancelled: $(grep "ArrayJobId=$job " log/jobcomp.txt)"
[ -e shards/slow/3/shard.txt ] && fail "the cancelled task left a whole shard"
if "$syncsim" merge shards/slow/1 shards/slow/2 shards/slow/4 --out merged-slow 2>merge.err; then
  fail "merge accepted 3 of 4 shards"
fi
sed 's/^/  merge: /' merge.err
command=$(grep -o 'run shard 3 with: .*' merge.err | sed 's/^run shard 3 with: syncsim //')
[ -n "$command" ] || fail "merge did not name the command for shard 3"
job=$(sbatch --parsable --cpus-per-task=1 --output=out/rerun.log --wrap "$syncsim $command")
echo "slurm-check: shard 3 resubmitted as job $job"
wait_job "$job" >/dev/null
grep -q "JobId=$job .*JobState=COMPLETED" log/jobcomp.txt || fail "the resubmitted shard did not complete: $(cat out/rerun.log)"
grep -q "finished runs\? kept" out/rerun.log || fail "the resubmitted shard kept none of the cancelled task's runs: $(cat out/rerun.log)"
sed 's/^/  rerun: /' out/rerun.log
"$syncsim" merge shards/slow/1 shards/slow/2 shards/slow/3 shards/slow/4 --out merged-slow >/dev/null
"$syncsim" sweep "$root/Scenarios/quickstart.json" "${slow_options[@]}" --out whole-slow >/dev/null
diff -r merged-slow whole-slow >/dev/null || fail "the resumed sweep differs from the unsharded one"
echo "slurm-check: after the resubmission, 4 shards merged, identical to the unsharded sweep"

# 4. A run shard cancelled while it runs, resubmitted: it goes on from its last checkpoint.
fleet=$root/Scripts/peer/peer-fleet.json
run_options=(--duration 2d --checkpoint-seconds 0.2)
job=$(sbatch --parsable --array=1-2 --cpus-per-task=1 --output=out/slowrun-%a.log \
  "$cluster/slurm-run.sbatch" "$fleet" shards/slowrun "${run_options[@]}")
echo "slurm-check: peer fleet run, job array $job (1-2) of Scripts/cluster/slurm-run.sbatch submitted"
for _ in $(seq 1 600); do
  grep -qs '^progress.parts' shards/slowrun/2.resume/checkpoint.txt && break
  sleep 0.05
done
squeue -h -j "${job}_2" -o '%T' | grep -q RUNNING || fail "run task 2 ended before it could be cancelled"
scancel "${job}_2"
wait_job "$job" >/dev/null
[ "$(states "$job" CANCELLED)" = 1 ] || fail "run task 2 was not cancelled: $(grep "ArrayJobId=$job " log/jobcomp.txt)"
[ -e shards/slowrun/2/run-shard.txt ] && fail "the cancelled run task left a whole shard"
kept=$(sed -n 's/^progress.parts \([0-9]*\).*/\1/p' shards/slowrun/2.resume/checkpoint.txt)
echo "slurm-check: run task 2 cancelled while running; its checkpoint counts $kept finished parts"
job=$(sbatch --parsable --cpus-per-task=1 --output=out/rerun-run.log \
  --wrap "$syncsim run $fleet ${run_options[*]} --shard 2/2 --out shards/slowrun/2")
wait_job "$job" >/dev/null
grep -q "JobId=$job .*JobState=COMPLETED" log/jobcomp.txt || fail "the resubmitted run shard did not complete: $(cat out/rerun-run.log)"
grep -q "^resumed      $kept of the shard's" out/rerun-run.log || fail "the resubmitted run shard did not go on from its $kept parts: $(cat out/rerun-run.log)"
grep '^resumed' out/rerun-run.log | sed 's/^/  rerun: /'
"$syncsim" merge shards/slowrun/1 shards/slowrun/2 --out merged-slowrun >/dev/null
"$syncsim" run "$fleet" --duration 2d --out whole-slowrun >/dev/null
diff -r merged-slowrun whole-slowrun >/dev/null || fail "the resumed run differs from the unsharded one"
echo "slurm-check: after the resubmission, 2 run shards merged, identical to the unsharded run"
echo "slurm-check: ok (${SECONDS} s)"
