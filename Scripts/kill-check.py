#!/usr/bin/env python3
"""Kills `syncsim run`, `sweep` and `merge` at random moments and checks every result set is whole.

Each command writes into a folder that already holds a whole set from another seed (and, for
`run`, a file of the user's own). The command is started, killed with SIGKILL after a random
delay within its usual duration, and the folder is read: every file must belong to the old set
or every file to the new one (each file carries its seed), the set must be complete, the user's
file must be intact, and no staging folder of a finished command may stay behind. A sweep killed
and started again must keep the runs it had finished and end equal to the uninterrupted sweep; a
shard of a run (`run --shard`) likewise keeps the parts its last checkpoint counts.
Then pairs of the same command run at once into one folder: both exit 0 and one whole set remains.

Usage: python3 Scripts/kill-check.py [--kills N] [--pairs N] [--seed S] [--binary PATH] [--only CHECK]
Exits 1 on any mixed or partial set.
"""
import argparse
import csv
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

RUN_FILES = ["summary.csv", "latency.csv", "activities.csv", "timeline.csv", "resolved.json"]


def seeds_of_run(folder):
    """The seed each file of a run folder holds, or None for a file that is missing."""
    seeds = {}
    for name in RUN_FILES:
        path = os.path.join(folder, name)
        if not os.path.exists(path):
            seeds[name] = None
        elif name.endswith(".json"):
            seeds[name] = str(json.load(open(path))["seed"])
        else:
            with open(path, newline="") as handle:
                row = next(csv.DictReader(handle), None)
            seeds[name] = row["seed"] if row else "empty"
    return seeds


def seeds_of_sweep(folder):
    """The seeds each file of a sweep folder holds (as a sorted tuple), by file."""
    seeds = {}
    for name in ["sweep.csv"]:
        path = os.path.join(folder, name)
        if not os.path.exists(path):
            seeds[name] = None
            continue
        with open(path, newline="") as handle:
            seeds[name] = tuple(sorted({row["seed"] for row in csv.DictReader(handle)}))
    summary = os.path.join(folder, "sweep-summary.csv")
    seeds["sweep-summary.csv"] = "present" if os.path.exists(summary) else None
    points = os.path.join(folder, "points")
    found = set()
    for point in sorted(os.listdir(points)) if os.path.isdir(points) else []:
        resolved = os.path.join(points, point, "resolved.json")
        if not os.path.exists(resolved):
            found.add(None)
            continue
        document = json.load(open(resolved))
        found.add(tuple(sorted(str(s) for s in document.get("seeds", [document.get("seed")]))))
    seeds["points"] = tuple(sorted(found, key=str))
    return seeds


def staging_left(parent):
    return [name for name in os.listdir(parent) if ".tmp-" in name]


def kill_after(args, delay):
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    if process.poll() is None:
        process.send_signal(signal.SIGKILL)
    process.wait()
    return process.returncode


def run_folder_with_notes(binary, scenario, work, name):
    """A run folder (seed 1) holding a file of the user's, notes.txt, and the command that writes
    into it (a seed to be added)."""
    folder = os.path.join(work, name)
    base = [binary, "run", scenario, "--duration", "10d", "--out", folder]
    subprocess.run(base + ["--seed", "1"], check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(folder, "notes.txt"), "w") as handle:
        handle.write("mine\n")
    # A folder of the user's own: it moves with the set (issue 53, item 9), never into a mix.
    os.makedirs(os.path.join(folder, "plots"), exist_ok=True)
    with open(os.path.join(folder, "plots", "fig.svg"), "w") as handle:
        handle.write("<svg/>\n")
    return folder, base


def users_folder_state(folder, work):
    """Where the user's plots/ is: 'here', 'staged' (in a staging folder a killed write left,
    which the next write beside it gives back) or 'lost'."""
    if os.path.exists(os.path.join(folder, "plots", "fig.svg")):
        return "here"
    for name in staging_left(work):
        if os.path.exists(os.path.join(work, name, "plots", "fig.svg")):
            return "staged"
    return "lost"


def check_run(binary, scenario, work, kills, rng, through_link=False):
    failures = []
    folder, base = run_folder_with_notes(binary, scenario, work, "run-linked" if through_link else "run")
    if through_link:
        # The run writes through a link to the folder (issue 71, item 6): the folder it names is
        # replaced whole, the link stays a link.
        link = os.path.join(work, "run-link")
        os.symlink(folder, link)
        base = [link if arg == folder else arg for arg in base]
    started = time.monotonic()
    subprocess.run(base + ["--seed", "2"], check=True, stdout=subprocess.DEVNULL)
    duration = time.monotonic() - started
    outcomes = {"old": 0, "new": 0, "staged": 0}
    for kill in range(kills):
        old, new = ("2", "3") if kill % 2 == 0 else ("3", "2")
        kill_after(base + ["--seed", new], rng.uniform(0, duration * 1.2))
        state = users_folder_state(folder, work)
        if state == "lost":
            failures.append(f"run kill {kill}: the user's plots/ is gone")
        elif state == "staged":
            outcomes["staged"] += 1
        seeds = seeds_of_run(folder)
        values = set(seeds.values())
        if len(values) != 1 or None in values or values.pop() not in (old, new):
            failures.append(f"run kill {kill}: mixed or partial set {seeds}")
        elif seeds["summary.csv"] == new:
            outcomes["new"] += 1
        else:
            outcomes["old"] += 1
            # Leave the folder as the next kill expects it: the new set whole.
            subprocess.run(base + ["--seed", new], check=True, stdout=subprocess.DEVNULL)
        if open(os.path.join(folder, "notes.txt")).read() != "mine\n":
            failures.append(f"run kill {kill}: the user's notes.txt changed or went")
        if state == "staged":
            # The next write beside the killed one gives the folder back.
            subprocess.run(base + ["--seed", new], check=True, stdout=subprocess.DEVNULL)
            if users_folder_state(folder, work) != "here":
                failures.append(f"run kill {kill}: the user's plots/ was not given back by the next write")
    subprocess.run(base + ["--seed", "4"], check=True, stdout=subprocess.DEVNULL)
    if staging_left(work):
        failures.append(f"run: staging folders left after a whole run: {staging_left(work)}")
    if users_folder_state(folder, work) != "here":
        failures.append("run: the user's plots/ is not in the folder at the end")
    name = "run through a link" if through_link else "run"
    if through_link and not os.path.islink(os.path.join(work, "run-link")):
        failures.append("run through a link: the link is no longer a link")
    return failures, (f"{name}: {kills} kills, {outcomes['old']} left the old set, {outcomes['new']} the new, "
                      f"{outcomes['staged']} between exchange and move (plots/ given back by the next write)")


def check_run_through_link(binary, scenario, work, kills, rng):
    return check_run(binary, scenario, work, kills, rng, through_link=True)


def sweep_args(binary, scenario, folder, seeds, shard=None):
    args = [binary, "sweep", scenario, "--set", "push.dropProbability=0,0.5", "--set", "duration=3d",
            "--seeds", seeds, "--jobs", "1", "--out", folder]
    return args + (["--shard", shard] if shard else [])


def check_sweep(binary, scenario, work, kills, rng):
    failures = []
    folder = os.path.join(work, "sweep")
    subprocess.run(sweep_args(binary, scenario, folder, "1..3"), check=True, stdout=subprocess.DEVNULL)
    started = time.monotonic()
    subprocess.run(sweep_args(binary, scenario, folder, "4..6"), check=True, stdout=subprocess.DEVNULL)
    duration = time.monotonic() - started
    sets = {"1..3": ("1", "2", "3"), "4..6": ("4", "5", "6")}
    for kill in range(kills):
        new = "1..3" if kill % 2 == 0 else "4..6"
        kill_after(sweep_args(binary, scenario, folder, new), rng.uniform(0, duration * 1.2))
        seeds = seeds_of_sweep(folder)
        whole = [name for name, expected in sets.items()
                 if seeds["sweep.csv"] == expected and seeds["points"] == (expected,)
                 and seeds["sweep-summary.csv"] == "present"]
        if not whole:
            failures.append(f"sweep kill {kill}: mixed or partial set {seeds}")
    return failures, f"sweep: {kills} kills"


def check_merge(binary, scenario, work, kills, rng):
    failures = []
    shards = {}
    for seeds in ["1..2", "3..4"]:
        for index in (1, 2):
            folder = os.path.join(work, f"shard-{seeds}-{index}")
            subprocess.run(sweep_args(binary, scenario, folder, seeds, f"{index}/2"), check=True,
                           stdout=subprocess.DEVNULL)
            shards.setdefault(seeds, []).append(folder)
    out = os.path.join(work, "merged")
    subprocess.run([binary, "merge", *shards["1..2"], "--out", out], check=True, stdout=subprocess.DEVNULL)
    started = time.monotonic()
    subprocess.run([binary, "merge", *shards["3..4"], "--out", out], check=True, stdout=subprocess.DEVNULL)
    duration = time.monotonic() - started
    sets = {"1..2": ("1", "2"), "3..4": ("3", "4")}
    for kill in range(kills):
        new = "1..2" if kill % 2 == 0 else "3..4"
        kill_after([binary, "merge", *shards[new], "--out", out], rng.uniform(0, duration * 1.5))
        seeds = seeds_of_sweep(out)
        whole = [name for name, expected in sets.items()
                 if seeds["sweep.csv"] == expected and seeds["points"] == (expected,)]
        if not whole:
            failures.append(f"merge kill {kill}: mixed or partial set {seeds}")
    return failures, f"merge: {kills} kills"


def check_resume(binary, scenario, work, kills, rng):
    """A sweep (or one of its two shards) killed at a random moment, then started again: it keeps
    the runs the killed attempt finished (`DIR.resume/`), runs only the others, and its files (or
    the merge of its shards) equal the uninterrupted sweep's byte for byte."""
    failures = []
    seeds = "1..8"
    whole = os.path.join(work, "resume-whole")
    started = time.monotonic()
    subprocess.run(sweep_args(binary, scenario, whole, seeds), check=True, stdout=subprocess.DEVNULL)
    duration = time.monotonic() - started
    other = os.path.join(work, "resume-shard-2")
    subprocess.run(sweep_args(binary, scenario, other, seeds, "2/2"), check=True, stdout=subprocess.DEVNULL)
    kept_total = 0
    for kill in range(kills):
        shard = "1/2" if kill % 2 else None
        folder = os.path.join(work, f"resume-{kill}")
        kill_after(sweep_args(binary, scenario, folder, seeds, shard), rng.uniform(0, duration * (0.6 if shard else 1.1)))
        journal = folder + ".resume"
        finished = len([n for n in os.listdir(journal) if n.startswith("run-") and n.endswith(".csv")]) \
            if os.path.isdir(journal) else 0
        again = subprocess.run(sweep_args(binary, scenario, folder, seeds, shard), stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
        if again.returncode != 0:
            failures.append(f"resume {kill}: exit {again.returncode}: {again.stderr.strip()}")
            continue
        if finished and f"{finished} finished run" not in again.stderr:
            failures.append(f"resume {kill}: {finished} runs had finished, but: {again.stderr.strip()!r}")
        kept_total += finished
        if os.path.exists(journal):
            failures.append(f"resume {kill}: {journal} left behind")
        result = folder
        if shard:
            result = folder + "-merged"
            subprocess.run([binary, "merge", folder, other, "--out", result], check=True, stdout=subprocess.DEVNULL)
        differ = subprocess.run(["diff", "-r", result, whole], stdout=subprocess.DEVNULL).returncode
        if differ:
            failures.append(f"resume {kill}: the resumed {'shard' if shard else 'sweep'} differs from the whole sweep")
        shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(folder + "-merged", ignore_errors=True)
    return failures, f"resume: {kills} kills, {kept_total} finished runs kept and not run again"


def checkpoint_parts(journal):
    """The parts the checkpoint in a run shard's journal counts (0 when there is none)."""
    try:
        for line in open(os.path.join(journal, "checkpoint.txt")):
            if line.startswith("progress.parts "):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def check_run_shard_resume(binary, scenario, work, kills, rng):
    """A shard of a run of independent accounts (`run --shard 1/2`) killed at a random moment,
    then started again: it goes on from its journal's last checkpoint (`DIR.resume/`), runs only
    the parts after it, and its files equal the uninterrupted shard's byte for byte, so that the
    merge with shard 2 equals the unsharded run's files."""
    failures = []
    fleet = os.path.join(os.path.dirname(scenario), "..", "Scripts", "peer", "peer-fleet.json")
    base = [binary, "run", os.path.abspath(fleet), "--duration", "4h", "--jobs", "2"]
    whole = os.path.join(work, "shard-whole")
    subprocess.run(base + ["--out", whole], check=True, stdout=subprocess.DEVNULL)
    reference = os.path.join(work, "shard-1-ref")
    started = time.monotonic()
    subprocess.run(base + ["--shard", "1/2", "--out", reference], check=True, stdout=subprocess.DEVNULL)
    duration = time.monotonic() - started
    second = os.path.join(work, "shard-2")
    subprocess.run(base + ["--shard", "2/2", "--out", second], check=True, stdout=subprocess.DEVNULL)
    kept_total, resumed = 0, 0
    for kill in range(kills):
        folder = os.path.join(work, f"shard-1-{kill}")
        kill_after(base + ["--shard", "1/2", "--checkpoint-seconds", "0.05", "--out", folder],
                   rng.uniform(0, duration * 1.1))
        journal = folder + ".resume"
        done = checkpoint_parts(journal)
        again = subprocess.run(base + ["--shard", "1/2", "--out", folder], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        if again.returncode != 0:
            failures.append(f"run shard {kill}: exit {again.returncode}: {again.stderr.strip()}")
            continue
        said = [line for line in again.stdout.splitlines() if line.startswith("resumed ")]
        if done and not (said and said[0].split()[1] == str(done)):
            failures.append(f"run shard {kill}: its checkpoint counted {done} parts, but the run said {said!r}")
        if not done and said:
            failures.append(f"run shard {kill}: resumed with no checkpoint: {said!r}")
        kept_total += done
        resumed += 1 if done else 0
        if os.path.exists(journal):
            failures.append(f"run shard {kill}: {journal} left behind")
        differ = subprocess.run(["diff", "-rq", folder, reference], stdout=subprocess.PIPE, text=True)
        if differ.returncode:
            # Name the files that differ: a flake that says only "differs" cannot be found again.
            failures.append(f"run shard {kill}: the resumed shard differs from the uninterrupted one "
                            f"(checkpoint {done} parts): {differ.stdout.strip()}")
            keep = os.environ.get("KILL_CHECK_KEEP")
            if keep:
                shutil.copytree(folder, os.path.join(keep, f"shard-1-{kill}"), dirs_exist_ok=True)
                shutil.copytree(reference, os.path.join(keep, "shard-1-ref"), dirs_exist_ok=True)
        merged = folder + "-merged"
        subprocess.run([binary, "merge", folder, second, "--out", merged], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        for name in ("summary.csv", "latency.csv"):
            if subprocess.run(["cmp", "-s", os.path.join(merged, name), os.path.join(whole, name)]).returncode:
                failures.append(f"run shard {kill}: the merge's {name} differs from the unsharded run's")
        shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(merged, ignore_errors=True)
    return failures, (f"run shard resume: {kills} kills, {resumed} resumed from a checkpoint, {kept_total} "
                      f"finished parts kept and not run again")


def check_pairs(binary, scenario, work, pairs):
    failures = []
    folder, base = run_folder_with_notes(binary, scenario, work, "pair")
    for pair in range(pairs):
        first = subprocess.Popen(base + ["--seed", "5"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        second = subprocess.Popen(base + ["--seed", "6"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        # A note the user makes while both commit: it must be there when they are done.
        late = os.path.join(folder, f"late-{pair}.txt")
        time.sleep(0.01 * (pair % 20))
        with open(late, "w") as handle:
            handle.write("late\n")
        codes = (first.wait(), second.wait())
        if not os.path.exists(late):
            failures.append(f"pair {pair}: a note made during the writes ({os.path.basename(late)}) was lost")
        if users_folder_state(folder, work) != "here":
            failures.append(f"pair {pair}: the user's plots/ is not in the folder")
        seeds = seeds_of_run(folder)
        values = set(seeds.values())
        if codes != (0, 0):
            failures.append(f"pair {pair}: exit codes {codes}: {first.stderr.read()!r} {second.stderr.read()!r}")
        if len(values) != 1 or values.pop() not in ("5", "6"):
            failures.append(f"pair {pair}: mixed set {seeds}")
        if open(os.path.join(folder, "notes.txt")).read() != "mine\n":
            failures.append(f"pair {pair}: the user's notes.txt changed or went")
    if staging_left(work):
        failures.append(f"pairs: staging folders left: {staging_left(work)}")
    return failures, f"pairs: {pairs} concurrent pairs"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--pairs", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--binary", default=".build/release/syncsim")
    parser.add_argument("--only", choices=["run", "link", "sweep", "merge", "resume", "shard", "pairs"],
                        help="run one check alone (to chase a flake)")
    options = parser.parse_args()
    binary = os.path.abspath(options.binary)
    scenario = os.path.abspath("Scenarios/quickstart.json")
    rng = random.Random(options.seed)
    failures = []
    work = tempfile.mkdtemp(prefix="syncsim-kill-")
    try:
        checks = {"run": check_run, "link": check_run_through_link, "sweep": check_sweep, "merge": check_merge, "resume": check_resume,
                  "shard": check_run_shard_resume}
        for name, check in checks.items():
            if options.only in (None, name):
                found, line = check(binary, scenario, work, options.kills, rng)
                failures += found
                print(f"kill-check: {line}, {len(found)} failures")
        if options.only in (None, "pairs"):
            found, line = check_pairs(binary, scenario, work, options.pairs)
            failures += found
            print(f"kill-check: {line}, {len(found)} failures")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for failure in failures[:20]:
        print("FAIL " + failure)
    print(f"kill-check: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
