#!/usr/bin/env python3
"""Where a world's instructions go, by component (issue 75, item 1).

Runs one command under valgrind's cachegrind (--cache-sim=no, so the count is exact and
repeatable) and sums the instructions per source file, then per component. Cachegrind charges an
inlined line to the file it was written in, so a scheduler function inlined into the world's loop
still counts as the scheduler's. Instructions in code with no line of ours (a closure or an outlined
copy the compiler wrote, the Swift runtime's retain and release, libc) go to the component its
enclosing function's mangled name names (module and type), else to "stdlib" (the standard
library's generics) or "runtime" (retain, release, uniqueness checks, memcpy, malloc).

The component of a file is decided by its path, for the layout of today's tree and for the
flatter layout of e42eb72 (the third wave's head), so the two builds' tables line up:

  kernel      Sources/SimKernel
  scheduler   SimModel/Scheduler, and at e42eb72 World+Scheduler, Policies/, RunHistory, ActivityState
  clients     SimModel/Client, and at e42eb72 World+Edits/Export/Import/Polling/Convergence/Resets,
              StoreState, WriteState, WriteTable
  push        SimModel/Push, and at e42eb72 World+Push
  server      SimModel/Server, and at e42eb72 Faults/, AccountState, ZoneState, World+Requests
  devices     SimModel/Devices, World+Battery, World+Background, and at e42eb72 DeviceState,
              World+Lifecycle, ParkedRequest
  world       the rest of SimModel (World, its routing, setup, WorldRunner, WorldSpec)
  cause audit SimMetrics' MetricsRecorder+Audit, +Causes, HoldLog, LatencyRow (not at e42eb72)
  metrics     the rest of SimMetrics
  scenario    SimScenario, SimExperiments, SimCLI, SimTwin, SimReport, syncsim
  stdlib      Swift's standard library's generics specialised for our types
  runtime     the Swift runtime and libc: retain, release, uniqueness checks, memcpy, malloc

Usage:
  python3 Scripts/instructions/components.py --binary .build/release/syncsim -- run WORLD.json --jobs 1 --out DIR
  python3 Scripts/instructions/components.py --file cachegrind.out.N     (an existing profile)
  python3 Scripts/instructions/components.py --self-test                 (its rules, in CI)
Prints a table of components (instructions, share) and, with --files N, the N costliest files.
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

E42_SCHEDULER = {"World+Scheduler.swift", "RunHistory.swift", "ActivityState.swift"}
E42_CLIENTS = {"World+Edits.swift", "World+Export.swift", "World+Import.swift", "World+Polling.swift",
               "World+Convergence.swift", "World+Resets.swift", "StoreState.swift", "WriteState.swift",
               "WriteTable.swift"}
E42_SERVER = {"AccountState.swift", "ZoneState.swift", "World+Requests.swift"}
DEVICES = {"World+Battery.swift", "World+Background.swift", "DeviceState.swift", "World+Lifecycle.swift",
           "ParkedRequest.swift"}
AUDIT = {"MetricsRecorder+Audit.swift", "MetricsRecorder+Causes.swift", "HoldLog.swift", "LatencyRow.swift"}
ORDER = ["kernel", "scheduler", "clients", "push", "server", "devices", "world", "cause audit", "metrics",
         "scenario", "stdlib", "runtime"]


def component(path):
    """The component a source file belongs to, from its path."""
    if "/Sources/" not in path:
        return "stdlib" if path.endswith(".swift") or "swift" in path else "runtime"
    inside = path.split("/Sources/", 1)[1]
    parts = inside.split("/")
    module, name = parts[0], parts[-1]
    if module == "SimKernel":
        return "kernel"
    if module == "SimModel":
        folder = parts[1] if len(parts) > 2 else ""
        if folder in ("Scheduler", "Policies") or name in E42_SCHEDULER:
            return "scheduler"
        if folder == "Client" or name in E42_CLIENTS:
            return "clients"
        if folder == "Push" or name == "World+Push.swift":
            return "push"
        if folder in ("Server", "Faults") or name in E42_SERVER:
            return "server"
        if folder == "Devices" or name in DEVICES:
            return "devices"
        return "world"
    if module == "SimMetrics":
        return "cause audit" if name in AUDIT else "metrics"
    return "scenario"


FUNCTION_COMPONENTS = [
    ("$s9SimKernel", None, "kernel"),
    ("$s8SimModel", ("SchedulerHost", "SystemScheduler", "PolicySet", "RunHistory", "ActivityState"), "scheduler"),
    ("$s8SimModel", ("ClientHost", "SyncClients", "ExportPlan", "ImportMachine", "StoreState", "WriteTable"), "clients"),
    ("$s8SimModel", ("PushHost", "PushService"), "push"),
    ("$s8SimModel", ("CloudServer", "ZoneState", "RecordFault", "RequestFault"), "server"),
    ("$s8SimModel", None, "world"),
    ("$s10SimMetrics", None, "metrics"),
]


def function_component(function):
    """The component of code that has no source line of ours (a closure or thunk the compiler
    wrote, an outlined copy), from the module and type its mangled name opens with; the
    standard library's generics specialised for our types are `stdlib`, the rest `runtime`."""
    for prefix, types, name in FUNCTION_COMPONENTS:
        if function.startswith(prefix) and (types is None or any(t in function[:80] for t in types)):
            return name
    if function.startswith(("$s11SimScenario", "$s6SimCLI", "$s14SimExperiments", "$s7SimTwin", "$s9SimReport")):
        return "scenario"
    if function.startswith("$ss") or function.startswith("$sS"):
        return "stdlib"
    return "runtime"


def read_profile(path):
    """Instructions per source file ('fl=' blocks) and, for code without a file, per function."""
    by_file = collections.Counter()
    by_function = collections.Counter()
    names = {"fl": {}, "fn": {}}
    current_file, current_function = "???", "???"

    def resolve(kind, value):
        # Compressed names (callgrind's format): "(3) name" defines, "(3)" refers; files and
        # functions number apart.
        found = re.match(r"\((\d+)\)\s*(.*)", value)
        if not found:
            return value
        key, rest = found.groups()
        if rest:
            names[kind][key] = rest
        return names[kind].get(key, rest)

    with open(path, errors="replace") as handle:
        for line in handle:
            if line.startswith("fl="):
                current_file = resolve("fl", line[3:].strip())
            elif line.startswith("fn="):
                current_function = resolve("fn", line[3:].strip())
            elif line[:1].isdigit():
                fields = line.split()
                if len(fields) >= 2:
                    count = int(fields[1])
                    if "/Sources/" in current_file:
                        by_file[current_file] += count
                    else:
                        by_function[current_function] += count
    return by_file, by_function


def measure(binary, arguments):
    """Runs the command under cachegrind and returns the profile's path (in a temporary folder)."""
    folder = tempfile.mkdtemp(prefix="components-")
    out = os.path.join(folder, "cachegrind.out")
    result = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", f"--cachegrind-out-file={out}",
                             binary] + arguments, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        sys.exit(f"components: {binary} exited {result.returncode}:\n{result.stderr[-2000:]}")
    return out


def self_test():
    """The path and name rules on both layouts, and a profile read back (exit 1 on a mismatch)."""
    cases = [
        ("/r/Sources/SimKernel/EventHeap.swift", "kernel"),
        ("/r/Sources/SimModel/Scheduler/SchedulerHost+Decisions.swift", "scheduler"),
        ("/r/Sources/SimModel/Scheduler/Policies/PolicySet.swift", "scheduler"),
        ("/r/Sources/SimModel/World+Scheduler.swift", "scheduler"),
        ("/r/Sources/SimModel/Policies/PolicySet.swift", "scheduler"),
        ("/r/Sources/SimModel/Client/ImportMachine.swift", "clients"),
        ("/r/Sources/SimModel/World+Import.swift", "clients"),
        ("/r/Sources/SimModel/Push/PushService.swift", "push"),
        ("/r/Sources/SimModel/World+Push.swift", "push"),
        ("/r/Sources/SimModel/Server/CloudServer.swift", "server"),
        ("/r/Sources/SimModel/Faults/ZoneBusyFault.swift", "server"),
        ("/r/Sources/SimModel/Devices/DeviceState.swift", "devices"),
        ("/r/Sources/SimModel/DeviceState.swift", "devices"),
        ("/r/Sources/SimModel/World.swift", "world"),
        ("/r/Sources/SimMetrics/MetricsRecorder+Audit.swift", "cause audit"),
        ("/r/Sources/SimMetrics/ObserverLog.swift", "metrics"),
        ("/r/Sources/SimTwin/Fit.swift", "scenario"),
    ]
    names = [
        ("$s9SimKernel9EventHeapV6insertyy", "kernel"),
        ("$s8SimModel13SchedulerHostPAAE6decide_3sim", "scheduler"),
        ("$s8SimModel10ClientHostPAAE6commit_8activity", "clients"),
        ("$s8SimModel11PushServiceVWOc", "push"),
        ("$s8SimModel11CloudServerV6answer", "server"),
        ("$s8SimModel11WorldRunnerO3run", "world"),
        ("$s10SimMetrics0B8RecorderC7observe", "metrics"),
        ("$ss6_merge3low3mid4high", "stdlib"),
        ("swift_retain", "runtime"),
    ]
    failed = [(p, want, component(p)) for p, want in cases if component(p) != want]
    failed += [(n, want, function_component(n)) for n, want in names if function_component(n) != want]
    profile = ("events: Ir\nfl=(1) /r/Sources/SimKernel/EventHeap.swift\nfn=(1) $s9SimKernel9EventHeapV6insert\n"
               "10 100\n11 20\nfl=(2) ???\nfn=(2) swift_retain\n0 7\nfl=(1)\nfn=(1)\n12 3\n")
    with tempfile.NamedTemporaryFile("w", suffix=".out", delete=False) as handle:
        handle.write(profile)
    by_file, by_function = read_profile(handle.name)
    os.unlink(handle.name)
    if by_file != {"/r/Sources/SimKernel/EventHeap.swift": 123} or by_function != {"swift_retain": 7}:
        failed.append(("profile", "123 and 7", f"{dict(by_file)} {dict(by_function)}"))
    for what, want, got in failed:
        print(f"components self-test: {what}: {got}, expected {want}", file=sys.stderr)
    print(f"components self-test: {len(cases) + len(names) + 1 - len(failed)} of {len(cases) + len(names) + 1} hold")
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary")
    parser.add_argument("--file", help="an existing cachegrind profile")
    parser.add_argument("--files", type=int, default=0, help="also list the N costliest files")
    parser.add_argument("--functions", type=int, default=0, help="also list the N costliest runtime functions")
    parser.add_argument("--tsv", action="store_true", help="component<TAB>instructions, for joining two builds")
    parser.add_argument("arguments", nargs="*")
    parser.add_argument("--self-test", action="store_true", help="check the rules and the reader, then exit")
    options = parser.parse_args()
    if options.self_test:
        return self_test()
    if options.file:
        path = options.file
    elif options.binary:
        path = measure(options.binary, options.arguments)
        print(f"components: profile {path}", file=sys.stderr)
    else:
        parser.error("--binary and a command, or --file")
    by_file, by_function = read_profile(path)
    total = sum(by_file.values()) + sum(by_function.values())
    totals = collections.Counter()
    for name, count in by_file.items():
        totals[component(name)] += count
    for name, count in by_function.items():
        totals[function_component(name)] += count
    if options.tsv:
        for name in ORDER:
            print(f"{name}\t{totals[name]}")
        print(f"total\t{total}")
        return 0
    print(f"{'component':<12} {'instructions':>16} {'share':>7}")
    for name in ORDER:
        print(f"{name:<12} {totals[name]:>16,} {totals[name] / total:>7.1%}")
    print(f"{'total':<12} {total:>16,}")
    for name, count in by_file.most_common(options.files):
        print(f"{count:>16,} {count / total:>6.1%}  {component(name):<11} {name}")
    for name, count in by_function.most_common(options.functions):
        print(f"{count:>16,} {count / total:>6.1%}  {function_component(name):<11} {name[:140]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
