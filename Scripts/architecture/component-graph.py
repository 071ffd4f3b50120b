#!/usr/bin/env python3
"""The component graph of SimModel: which component folder uses which, read from the source.

A folder of Sources/SimModel (Client, Devices, Push, Scheduler, Server; the files at the top
are World's own, the routing) uses another when one of its files names a type declared there,
calls a method that a file there declares on World (a facet), or reaches that component's state
through World's stored property (`clients.stores` is the Client's). Prints the edges with what makes
each, then checks them against the layering below: an edge that goes up it (a component using
one it serves) is a back edge, and a back edge not listed as known fails the check (exit 1). So
does a component's facet that writes into another component's state (`server.zones[z].x = ...`)
rather than calling that component's method or a port of its host protocol (`ClientHost`,
`SchedulerHost`, `PushHost`: what World gives it).

    python3 Scripts/architecture/component-graph.py            # check, print the graph
    python3 Scripts/architecture/component-graph.py --markdown # the table for docs/architecture.md
    python3 Scripts/architecture/component-graph.py --update   # record today's back edges and
                                                               # rewrite the table in the doc
    python3 Scripts/architecture/component-graph.py --self-test # show that the check fails on a
                                                               # made-up back edge and write

It also writes, between its own pair of lines in docs/architecture.md, the facts a reader of that
page would otherwise take on trust: which modules import Foundation (file by file), and each
plug-in point's members with the number of source files that name each one.

The back edges that exist are recorded, each with the names that make it, in
known-back-edges.json beside this script: a ratchet. A new back edge, or a new name through a
known one, fails; one that went away is reported, to be taken off the record with --update.
"""
import json
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "Sources", "SimModel")
# Lower layers never use higher ones. The clients sit on the scheduler, the server and the push
# service; devices (their states and conditions) under all of them; the world's spec
# (`WorldSpec`, which names every component's parameters and plug-ins) above the components, which
# are given only their own parameters; World routes above all.
LAYERS = ["Vocabulary", "Devices", "Server", "Scheduler", "Push", "Client", "Spec", "World"]
KNOWN = os.path.join(os.path.dirname(__file__), "known-back-edges.json")
# The graph's table in the architecture document sits between these lines; the check fails when
# it is not the one the source gives.
DOC = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "architecture.md")
BEGIN, END = "<!-- component-graph: begin (Scripts/architecture/component-graph.py --update) -->", "<!-- component-graph: end -->"
FACTS_BEGIN = "<!-- module-facts: begin (Scripts/architecture/component-graph.py --update) -->"
FACTS_END = "<!-- module-facts: end -->"
SOURCES = os.path.join(os.path.dirname(__file__), "..", "..", "Sources")
# Each plug-in point: its folder, and the files there that are its machinery, not a member.
PLUG_INS = [
    ("scheduler policy", "SimModel/Scheduler/Policies",
     {"PolicyDefinition", "PolicyRegistry", "PolicySet", "SchedulerPolicy"}),
    ("request fault", "SimModel/Server/RequestFaults", {"Backoff", "FaultKnob", "RequestFault", "RequestFaultSet"}),
    ("record fault", "SimModel/Server/RecordFaults", {"RecordFault", "RecordFaultSet"}),
]

# Top-level declarations only: a nested type (`PolicyDefinition.Value`) is named through its outer
# type, and its bare name (`Value`) is also any generic parameter's.
DECL = re.compile(r"^(?:public |internal |fileprivate |private |final |indirect )*(?:struct|enum|class|protocol|typealias|actor)\s+(\w+)", re.M)
# A component's host protocol (the ports World gives it), named after it; World is the one host.
HOSTS = ["ClientHost", "SchedulerHost", "PushHost"]
# A facet: an extension of World, or of a component's host protocol, whose methods run on World.
WORLD_EXT = re.compile(r"^extension (?:World|" + "|".join(HOSTS) + r")\b[^{]*\{", re.M)
FUNC = re.compile(r"^\s+(?:@\w+(?:\([^)]*\))?\s+)*(?:public |internal |fileprivate |private |static |mutating |nonisolated )*func\s+(\w+)", re.M)
IDENT = re.compile(r"\b([A-Za-z_]\w*)\b")
# World's stored properties and the component that owns each: a facet that reads or writes one
# uses that component's state.
OWNERS = {"clients": "Client", "server": "Server", "scheduler": "Scheduler", "push": "Push",
          "agenda": "Devices", "devices": "Devices", "levels": "Devices", "deviceTraits": "Devices",
          "parked": "Devices"}
STATE = re.compile(r"(?<![.\w])(?:self\.|world\.)?(clients|server|scheduler|push|agenda|devices|levels|deviceTraits|parked)\.(\w+)")
# A declaration of the same name on another type (`func name(`) or an enum case with a payload
# (`case name(`) is not a call.
CALL = re.compile(r"(?:(?<![.\w])(?<!func )(?<!case )|\bself\.|\bworld\.)([a-z_]\w*)\s*\(")
COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
STRING = re.compile(r'"(?:\\.|[^"\\])*"')


def folder_of(path):
    """The component a file belongs to: its folder; at the top, World's own files (the routing)
    or the shared vocabulary (ids, events, parameters, tables)."""
    relative = os.path.relpath(path, ROOT)
    if os.sep in relative:
        return relative.split(os.sep)[0]
    if re.match(r"WorldSpec(\+.*)?\.swift$|WorldPartitioning\.swift$", relative):
        return "Spec"
    return "World" if re.match(r"World(\+.*)?\.swift$|WorldRunner\.swift$", relative) else "Vocabulary"


def sources():
    for directory, _, files in sorted(os.walk(ROOT)):
        for name in sorted(files):
            if name.endswith(".swift"):
                path = os.path.join(directory, name)
                text = STRING.sub('""', COMMENT.sub("", open(path, encoding="utf-8").read()))
                yield path, folder_of(path), text


def world_blocks(text):
    """The bodies of a file's `extension World { ... }` and host-protocol extension blocks."""
    blocks = []
    for match in WORLD_EXT.finditer(text):
        depth, index = 1, match.end()
        while depth and index < len(text):
            depth += {"{": 1, "}": -1}.get(text[index], 0)
            index += 1
        blocks.append(text[match.end():index])
    return blocks


def world_methods(text):
    """The names of the functions a file declares in `extension World { ... }` blocks."""
    return {name for block in world_blocks(text) for name in FUNC.findall(block)}


# A component's host protocol: the ports World gives it. A call from the component to one of
# them goes through its own declaration (World implements it), so it is no edge of its own.
HOST = re.compile(r"^protocol (" + "|".join(HOSTS) + r")\b[^{]*\{(.*?)^\}", re.M | re.S)
PORT = re.compile(r"^\s+(?:mutating |static )*(?:func|var)\s+(\w+)", re.M)


def graph(files=None):
    files = list(sources()) if files is None else files
    types, methods, ports = {}, {}, {}
    # Every function a folder declares, on any type: a bare call of one of those names from that
    # folder is its own (CloudServer's `recordCost` inside CloudServer), even when World also
    # declares a port of that name.
    own = {}
    for path, folder, text in files:
        for _, body in HOST.findall(text):
            ports.setdefault(folder, set()).update(PORT.findall(body))
        own.setdefault(folder, set()).update(FUNC.findall(text))
        for name in DECL.findall(text):
            types.setdefault(name, folder)
        for name in world_methods(text):
            # A name declared in two folders (an overload) belongs to neither.
            methods[name] = folder if methods.get(name, folder) == folder else None
    # `World` is what every facet extends: naming it is the facets' shape, not a use.
    types.pop("World", None)
    edges = {}
    for path, folder, text in files:
        for name in sorted(set(IDENT.findall(text))):
            owner = types.get(name)
            if owner and owner != folder:
                edges.setdefault((folder, owner), set()).add(name)
        # A component's state reached through World's stored property (`clients.stores`).
        # Only World's own code has these properties (WorldSpec has `devices` of its own).
        facet_text = "".join(world_blocks(text))
        for owner_property, member in sorted(set(STATE.findall(facet_text))):
            owner = OWNERS[owner_property]
            if owner != folder:
                edges.setdefault((folder, owner), set()).add(owner_property + "." + member)
        # A facet method is called bare or on self/world, never on another value.
        for name in sorted(set(CALL.findall(text)) - ports.get(folder, set()) - own.get(folder, set())):
            owner = methods.get(name)
            if owner and owner != folder:
                edges.setdefault((folder, owner), set()).add(name + "()")
    return edges


# A write into another component's state: an assignment through its stored property, or a
# mutating call on what it holds. A component changes another's state only through that one's
# methods (the client: `server.recordChange(...)`, `setPending(...)`), never field by field.
WRITE = re.compile(
    r"(?<![.\w])(?:self\.)?(clients|server|scheduler|push|agenda|parked)((?:\.\w+|\[[^\]\n]*\])*)"
    r"(?:\s*(?:=(?!=)|\+=|-=|\*=|&=|\|=|&\+=|&-=)|\.(?:append|insert|remove\w*|recordChange|noteSet|compact\w*|set|sort|swapAt)\()")


def foreign_writes(files=None):
    """(file, text) of each write a component's facet makes into another component's state."""
    found = []
    for path, folder, text in sources() if files is None else files:
        if folder in ("World", "Vocabulary"):
            continue
        for block in world_blocks(text):
            for match in WRITE.finditer(block):
                if OWNERS[match.group(1)] == folder:
                    continue
                # A call on the component itself (`server.stamp(...)`) is its method, not a write.
                if match.group(2).count(".") == 0 and "[" not in match.group(2):
                    continue
                line = match.group(0).strip()
                found.append((os.path.relpath(path), line))
    return found


def world_extensions_in_components(files=None):
    """The files of a component folder that extend World itself (a component's behaviour extends
    its host protocol instead; World's own files sit at the top)."""
    return [os.path.relpath(path) if files is None else path
            for path, folder, text in (sources() if files is None else files)
            if folder not in ("World", "Vocabulary") and re.search(r"^extension World\b", text, re.M)]


def self_test():
    """The check's own failures, shown on made-up files: a back edge and a client's write into
    the server's state must be found, and a call of the server's method must not."""
    files = [
        ("Server/Probe.swift", "Server", "struct ProbeServer { var store: StoreState }"),
        ("Client/StoreState.swift", "Client", "struct StoreState {}"),
        ("Push/World+Probe.swift", "Push", "extension World {\n  func probe() {}\n}\n"),
        ("Client/Probe.swift", "Client",
         "extension ClientHost {\n  mutating func probe() {\n    server.zones[0].objects[1].stamp = 2\n"
         "    scheduler.storeActivities[0].pendingExport = .none\n    server.counterFields.append((1, 2))\n"
         "    _ = server.stamp(zone: 0, ObjectID(0), with: 1)\n    let same = server.zones[0].x == 1\n  }\n}\n"),
    ]
    rank = {name: index for index, name in enumerate(LAYERS)}
    back = [edge for edge in graph(files) if rank[edge[0]] < rank[edge[1]]]
    writes = [line for _, line in foreign_writes(files)]
    expected = ["server.zones[0].objects[1].stamp =", "scheduler.storeActivities[0].pendingExport =",
                "server.counterFields.append("]
    extending = world_extensions_in_components(files)
    ok = back == [("Server", "Client")] and writes == expected and extending == ["Push/World+Probe.swift"]
    print(f"component-graph self-test: back edges {back}, writes {writes}, World extended in {extending}: "
          f"{'ok' if ok else 'FAILED'}")
    return 0 if ok else 1


def main():
    if "--self-test" in sys.argv:
        return self_test()
    edges = graph()
    writes = foreign_writes()
    extending = world_extensions_in_components()
    for path in extending:
        print(f"component-graph: {path} extends World from a component's folder: extend the component's "
              "host protocol (ClientHost, SchedulerHost, PushHost), or put World's routing at the top", file=sys.stderr)
    for path, line in writes:
        print(f"component-graph: {path} writes another component's state ({line}): change it through "
              "that component's method or a port of its host protocol", file=sys.stderr)
    rank = {name: index for index, name in enumerate(LAYERS)}
    back = {edge: names for edge, names in edges.items() if rank[edge[0]] < rank[edge[1]]}
    order = lambda item: (rank[item[0][0]], rank[item[0][1]])
    if "--update" in sys.argv:
        record = {f"{a} -> {b}": sorted(names) for (a, b), names in sorted(back.items())}
        with open(KNOWN, "w", encoding="utf-8") as file:
            json.dump(record, file, indent=2)
            file.write("\n")
        print(f"component-graph: recorded {len(back)} back edges, {sum(map(len, back.values()))} names")
    known = {tuple(key.split(" -> ")): set(names) for key, names in json.load(open(KNOWN, encoding="utf-8")).items()}
    table = markdown(edges, back, order)
    if "--markdown" in sys.argv:
        print(table, end="")
        return 0
    doc = open(DOC, encoding="utf-8").read()
    blocks = [(BEGIN, END, table), (FACTS_BEGIN, FACTS_END, facts())]
    for begin, end, _ in blocks:
        if begin not in doc or end not in doc:
            print(f"component-graph: {DOC} lacks the lines {begin} and {end}", file=sys.stderr)
            return 1
    current = [doc[doc.index(begin) + len(begin) + 1:doc.index(end)] for begin, end, _ in blocks]
    if "--update" in sys.argv:
        for (begin, _, text), old in zip(blocks, current):
            doc = doc.replace(begin + "\n" + old, begin + "\n" + text)
        with open(DOC, "w", encoding="utf-8") as file:
            file.write(doc)
        return 0
    stale = any(old != text for (_, _, text), old in zip(blocks, current))
    for (a, b), names in sorted(edges.items(), key=order):
        kind = "BACK " if (a, b) in back else "     "
        print(f"{kind}{a} -> {b}: {len(names)} ({', '.join(sorted(names)[:6])}{', ...' if len(names) > 6 else ''})")
    new = {edge: names - known.get(edge, set()) for edge, names in back.items()}
    new = {edge: names for edge, names in new.items() if names}
    gone = sum(len(names - back.get(edge, set())) for edge, names in known.items())
    print(
        f"component-graph: {len(edges)} edges, {len(back)} back edges through {sum(map(len, back.values()))} names"
        + (f"; {gone} recorded names gone (record with --update)" if gone else ""))
    for (a, b), names in sorted(new.items(), key=order):
        print(f"component-graph: new back edge {a} -> {b} through {', '.join(sorted(names))}: a lower layer "
              f"must not reach a higher one ({' < '.join(LAYERS)}); pass what it needs through a port",
              file=sys.stderr)
    if stale:
        print(f"component-graph: a generated table in {os.path.relpath(DOC)} is not the source's: run "
              "python3 Scripts/architecture/component-graph.py --update", file=sys.stderr)
    return 1 if new or stale or writes or extending else 0


def stripped(text):
    """Swift source without its comments and string literals."""
    return STRING.sub('""', COMMENT.sub("", text))


def facts():
    """The modules' Foundation imports and the plug-in points' members, as Markdown."""
    modules = sorted(name for name in os.listdir(SOURCES) if os.path.isdir(os.path.join(SOURCES, name)))
    texts = {}
    for module in modules:
        for folder, _, names in os.walk(os.path.join(SOURCES, module)):
            for name in sorted(names):
                if name.endswith(".swift"):
                    path = os.path.join(folder, name)
                    texts[os.path.relpath(path, SOURCES)] = open(path, encoding="utf-8").read()
    lines = ["Which modules import Foundation, file by file:", "",
             "| module | files | importing Foundation | those files |", "|---|---|---|---|"]
    for module in modules:
        files = sorted(path for path in texts if path.split(os.sep)[0] == module)
        importing = [path for path in files if re.search(r"^import Foundation$", texts[path], re.M)]
        shown = ", ".join(f"`{os.path.basename(path)}`" for path in importing[:8])
        shown += f" and {len(importing) - 8} more" if len(importing) > 8 else ""
        lines.append(f"| {module} | {len(files)} | {len(importing)} | {shown or '—'} |")
    lines += ["", "The plug-in points' members, and how many source files name each (its own file "
              "included): what adding one like it touched.", "",
              "| plug-in point | member | files naming it |", "|---|---|---|"]
    code = {path: stripped(text) for path, text in texts.items()}
    for kind, folder, machinery in PLUG_INS:
        members = sorted(name[:-6] for name in os.listdir(os.path.join(SOURCES, folder))
                         if name.endswith(".swift") and name[:-6] not in machinery)
        for member in members:
            pattern = re.compile(r"\b" + re.escape(member) + r"\b")
            naming = sorted(path for path, text in code.items() if pattern.search(text))
            where = ", ".join(f"`{os.path.basename(path)}`" for path in naming)
            lines.append(f"| {kind} | `{member}` | {len(naming)}: {where} |")
    return "\n".join(lines) + "\n"


def markdown(edges, back, order):
    """The graph as a Markdown table, lower layers first."""
    lines = ["| from | uses | through |", "|---|---|---|"]
    for (a, b), names in sorted(edges.items(), key=order):
        mark = " (back edge)" if (a, b) in back else ""
        shown = ", ".join(f"`{n}`" for n in sorted(names)[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
        lines.append(f"| {a} | {b}{mark} | {shown} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
