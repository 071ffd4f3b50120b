#!/usr/bin/env python3
"""SyncSim beside a SimPy model of the same fleet (issue 19): latency distribution and speed.

Runs Scripts/peer/simpy_fleet.py (1,000 accounts × 2 devices, 6 edits/h, 24 h) and
`syncsim run Scripts/peer/peer-fleet.json` (the same constants) once each for their latencies,
then times the two whole processes in ROUNDS alternating pairs (default 9: the machine's speed
drifts by ±20 %, and a median of three pairs moves by about that much; SyncSim with
`"outputs": ["summary"]`, as a fleet is run), and prints:
- the two-sample Kolmogorov–Smirnov statistic and p-value of their latency distributions;
- each side's median wall time and the ratio per pair (SimPy ÷ SyncSim), median and range.

Needs SimPy (`pip install simpy`) and a release build (`swift build -c release`; the README's
figures are of a build with link-time optimisation, `--experimental-lto-mode=full`, see
Scripts/peer/README.md). `--binary` times another build of syncsim.
usage: python3 Scripts/peer/compare.py [--rounds N] [--seed S] [--binary PATH]

Each round times SimPy, SyncSim on one thread (--jobs 1) and SyncSim on every core, in turn.
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def ks_two_sample(a, b):
    """The KS statistic D and its asymptotic p-value (Kolmogorov's series, with Stephens' correction)."""
    a, b = sorted(a), sorted(b)
    i = j = 0
    d = 0.0
    while i < len(a) and j < len(b):
        x = min(a[i], b[j])
        while i < len(a) and a[i] <= x:
            i += 1
        while j < len(b) and b[j] <= x:
            j += 1
        d = max(d, abs(i / len(a) - j / len(b)))
    n = len(a) * len(b) / (len(a) + len(b))
    lam = (math.sqrt(n) + 0.12 + 0.11 / math.sqrt(n)) * d
    p = 2 * sum((-1) ** (k - 1) * math.exp(-2 * k * k * lam * lam) for k in range(1, 101))
    return d, min(1.0, max(0.0, p))


def timed(command):
    started = time.monotonic()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - started


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "syncsim"))
    options = parser.parse_args()
    binary = os.path.abspath(options.binary)
    if not os.access(binary, os.X_OK):
        sys.exit(f"compare.py: no syncsim at {binary}: build it with `swift build -c release`, or give --binary")
    work = tempfile.mkdtemp(prefix="syncsim-peer-")
    simpy_latencies = os.path.join(work, "simpy.txt")
    simpy_command = [sys.executable, os.path.join(HERE, "simpy_fleet.py"), "1000", "2", "6", "24", str(options.seed),
                     simpy_latencies]
    syncsim_command = [binary, "run", os.path.join(HERE, "peer-fleet.json"), "--seed", str(options.seed),
                       "--out", os.path.join(work, "syncsim")]
    subprocess.run(syncsim_command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    summary_only = os.path.join(work, "summary-only.json")
    with open(os.path.join(HERE, "peer-fleet.json"), encoding="utf-8") as handle:
        scenario = json.load(handle)
    scenario["outputs"] = ["summary"]
    with open(summary_only, "w", encoding="utf-8") as handle:
        json.dump(scenario, handle)
    cores = os.cpu_count() or 1
    timed_one = [binary, "run", summary_only, "--seed", str(options.seed), "--jobs", "1",
                 "--out", os.path.join(work, "timed-one")]
    timed_all = [binary, "run", summary_only, "--seed", str(options.seed), "--jobs", str(cores),
                 "--out", os.path.join(work, "timed-all")]
    # Each round times SimPy (one thread), SyncSim on one thread and SyncSim on every core, in
    # turn: both ratios come from the same rounds, so the machine's drift moves them together.
    rounds = []
    for _ in range(options.rounds):
        rounds.append((timed(simpy_command), timed(timed_one), timed(timed_all)))
    pairs = [(s, a) for s, _, a in rounds]
    one_thread = sorted(s / o for s, o, _ in rounds)
    simpy = [float(line) for line in open(simpy_latencies) if line.strip()]
    ours = []
    with open(os.path.join(work, "syncsim", "latency.csv"), newline="") as handle:
        for row in csv.DictReader(handle):
            if row["outcome"] == "visible" and row["latency"]:
                ours.append(float(row["latency"]))
    d, p = ks_two_sample(simpy, ours)
    ratios = sorted(s / o for s, o in pairs)
    median = lambda xs: sorted(xs)[len(xs) // 2]
    print(f"latency: SimPy {len(simpy)} deliveries, mean {sum(simpy) / len(simpy):.3f} s; "
          f"SyncSim {len(ours)} visible rows, mean {sum(ours) / len(ours):.3f} s")
    print(f"two-sample KS: D = {d:.4f}, p = {p:.3f}")
    print(f"syncsim: {binary}")
    print(f"wall (whole process, {options.rounds} alternating rounds, {cores} cores): "
          f"SimPy median {median([s for s, _ in pairs]):.2f} s; "
          f"SyncSim --jobs 1 median {median([o for _, o, _ in rounds]):.2f} s, "
          f"SimPy/SyncSim median {median(one_thread):.1f}x (range {one_thread[0]:.1f}-{one_thread[-1]:.1f}); "
          f"SyncSim --jobs {cores} median {median([o for _, o in pairs]):.2f} s, "
          f"SimPy/SyncSim median {median(ratios):.1f}x (range {ratios[0]:.1f}-{ratios[-1]:.1f})")


if __name__ == "__main__":
    main()
