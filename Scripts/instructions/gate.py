#!/usr/bin/env python3
"""The instruction-count gate (issue 75): three worlds' instructions, counted by valgrind's
cachegrind, against the figures recorded in Scripts/instructions/record.tsv.

Instruction counts are deterministic for a given build and input (no wall clock, one thread), so
this gate holds on a shared, noisy runner where timings drift by 20 %: it fails when a world's
count rises more than 2 % over its record, naming the world and the figures. A change that means
to cost more records the new figures in the same commit (--record) and says why in its message.

Worlds (each on one thread, summary only):
  peer-fleet      Scripts/peer/peer-fleet.json: 1,000 accounts x 2 devices, 6 edits/h, 24 h
  public-authors  two public-database authors, 600 edits/h each, 40 % deletes, 2 days
  short-fit       `fit` of a one-day quickstart event log: 20 particles, 2 generations

Usage: python3 Scripts/instructions/gate.py [--binary PATH] [--record] [--only WORLD]
Exits 0 when every world is within 2 % of its record (or --record), 1 when one rose past it,
2 when valgrind or the binary is missing.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RECORD = os.path.join(HERE, "record.tsv")
TOLERANCE = 0.02

AUTHORS = {
    "version": 1, "name": "public-authors", "seed": 3, "duration": "2d", "environment": "development",
    "polling": {"clock": "wallClock"},
    "devices": [{"name": "d0", "stores": ["public"]}, {"name": "d1", "stores": ["public"]}],
    "workloads": [{"devices": "all", "editsPerHour": 600, "insertShare": 0.4, "deleteShare": 0.4}],
    "outputs": ["summary"],
}


def worlds(binary, work):
    """Each world's name and the command whose instructions are counted (prepared in `work`)."""
    with open(os.path.join(ROOT, "Scripts/peer/peer-fleet.json")) as handle:
        peer = json.load(handle)
    peer["outputs"] = ["summary"]
    peer_file = os.path.join(work, "peer-fleet.json")
    authors_file = os.path.join(work, "public-authors.json")
    for path, document in ((peer_file, peer), (authors_file, AUTHORS)):
        with open(path, "w") as handle:
            json.dump(document, handle)
    quickstart = os.path.join(ROOT, "Scenarios/quickstart.json")
    log_folder = os.path.join(work, "app")
    subprocess.run([binary, "run", quickstart, "--duration", "1d", "--event-log", "--out", log_folder],
                   check=True, stdout=subprocess.DEVNULL)
    return [
        ("peer-fleet", [binary, "run", peer_file, "--jobs", "1", "--out", os.path.join(work, "peer")]),
        ("public-authors", [binary, "run", authors_file, "--jobs", "1", "--out", os.path.join(work, "authors")]),
        ("short-fit", [binary, "fit", os.path.join(log_folder, "event-log.ndjson"), "--scenario", quickstart,
                       "--particles", "20", "--generations", "2", "--max-worlds", "120", "--jobs", "1",
                       "--out", os.path.join(work, "fit")]),
    ]


def count(command):
    """The instructions cachegrind counts for `command` (its 'I refs')."""
    result = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"] + command,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        sys.exit(f"instruction gate: {' '.join(command[:3])} exited {result.returncode}:\n{result.stderr[-2000:]}")
    found = re.search(r"I\s+refs:\s+([\d,]+)", result.stderr)
    if not found:
        sys.exit(f"instruction gate: no instruction count in valgrind's output:\n{result.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def read_record():
    record = {}
    if os.path.exists(RECORD):
        with open(RECORD) as handle:
            for line in handle:
                if line.startswith("#") or not line.strip():
                    continue
                name, figure = line.rstrip("\n").split("\t")[:2]
                record[name] = int(figure)
    return record


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/release/syncsim"))
    parser.add_argument("--record", action="store_true", help="write the figures measured as the new record")
    parser.add_argument("--only", help="one world")
    options = parser.parse_args()
    if shutil.which("valgrind") is None or not os.path.exists(options.binary):
        print("instruction gate: needs valgrind (Debian: valgrind) and a release build", file=sys.stderr)
        return 2
    record = read_record()
    measured = {}
    failed = []
    with tempfile.TemporaryDirectory() as work:
        for name, command in worlds(options.binary, work):
            if options.only and name != options.only:
                continue
            figure = count(command)
            measured[name] = figure
            old = record.get(name)
            if old is None:
                print(f"instruction gate: {name} {figure:,} instructions (no record)")
                continue
            change = (figure - old) / old
            line = f"instruction gate: {name} {figure:,} instructions, record {old:,} ({change:+.2%})"
            if change > TOLERANCE:
                failed.append(name)
                line += f": FAIL, over the record by more than {TOLERANCE:.0%}"
            elif change < -TOLERANCE:
                line += ": cheaper; record it (--record) to keep the gate tight"
            print(line)
    if options.record:
        record.update(measured)
        with open(RECORD, "w") as handle:
            handle.write("# world\tinstructions (valgrind --tool=cachegrind --cache-sim=no, release build, one thread)\n")
            for name in sorted(record):
                handle.write(f"{name}\t{record[name]}\n")
        print(f"instruction gate: recorded {', '.join(sorted(measured))} in {os.path.relpath(RECORD, ROOT)}")
        return 0
    missing = [name for name in measured if name not in record]
    if failed or missing:
        print(f"instruction gate: {', '.join(failed + missing)} "
              f"{'rose past the record' if failed else 'has no record'}. If the change means to cost more, record "
              f"the figures in the same commit (python3 Scripts/instructions/gate.py --record) and say why in its "
              f"message.", file=sys.stderr)
        return 1
    print("instruction gate: ok (every world within 2 % of its record)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
