#!/usr/bin/env python3
"""Core Data or CKSyncEngine? Runs the library's four client contrasts as sweeps (both clients,
seeds 1..10) and prints docs/sync-engine.md's table: each cell the mean over the 10 seeds of one metric
of `sweep-summary.csv`.

    swift build -c release && python3 Scripts/contrast/client-contrast.py [--out DIR]
"""
import csv
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SYNCSIM = os.path.join(ROOT, ".build", "release", "syncsim")

# (scenario, metric, label, unit, source of the difference)
ROWS = [
    ("client-daily-use", "stage.exportSchedule.mean", "daily use: save → send starts", "s",
     "no export start delay published for the engine [assumed]"),
    ("client-daily-use", "stage.importSchedule.mean", "daily use: push → fetch starts", "s",
     "immediate push fetch [RE], UNCONFIRMED"),
    ("client-daily-use", "exports", "daily use: sends a day", "", "no send on deactivation [C]"),
    ("client-daily-use", "imports", "daily use: fetches a day", "", "no fetch on activation [assumed]"),
    ("client-daily-use", "latency.p50", "daily use: latency p50", "h", "the reader's sessions decide both"),
    ("client-bulk-import", "requestsUp", "bulk import of 5,000: upload requests", "", "batches of 250 [A] vs 400 [A][RE]"),
    ("client-bulk-import", "convergenceTime", "bulk import of 5,000: converged after", "s", ""),
    ("client-backgrounded-save", "latency.p50", "save on backgrounding: latency p50", "min",
     "no send in the background [C] sqlite-data PR #167"),
    ("client-backgrounded-save", "writesPending", "save on backgrounding: writes unsent at 12 h", "", "[C]"),
    ("client-low-power-night", "latency.max", "Low Power Mode night: latency max", "h",
     "the app's own fetch skips dasd's policies [RE]"),
    ("client-low-power-night", "blocked.lowPowerMode.total", "Low Power Mode night: held by lowPowerMode", "h", "[RE]"),
]
SCALE = {"s": 1, "min": 60, "h": 3600, "": 1}


def sweep(name, out):
    folder = os.path.join(out, name)
    subprocess.run([SYNCSIM, "sweep", os.path.join(ROOT, "Scenarios", name + ".json"), "--out", folder, "--jobs", "2"],
                   check=True, stdout=subprocess.DEVNULL)
    means = {}
    with open(os.path.join(folder, "sweep-summary.csv"), newline="") as handle:
        for row in csv.DictReader(handle):
            means[(row["devices[0].client"], row["metric"])] = row["mean"]
    return means


def cell(value, unit):
    if value == "":
        return "–"
    number = float(value) / SCALE[unit]
    text = f"{number:.2f}" if abs(number) < 10 else f"{number:.1f}" if abs(number) < 100 else f"{number:.0f}"
    return text + (" " + unit if unit else "")


def main():
    out = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else "/tmp/syncsim-client-contrast"
    results = {}
    print("| what (mean of 10 seeds) | Core Data | CKSyncEngine | the difference rests on |")
    print("|---|---|---|---|")
    for name, metric, label, unit, source in ROWS:
        if name not in results:
            results[name] = sweep(name, out)
        means = results[name]
        core = cell(means.get(("coreData", metric), ""), unit)
        engine = cell(means.get(("syncEngine", metric), ""), unit)
        print(f"| {label} | {core} | {engine} | {source} |")


if __name__ == "__main__":
    main()
