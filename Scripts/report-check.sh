#!/usr/bin/env bash
# Renders `syncsim report` pages in headless Chromium and checks what a person would see: a
# non-blank screenshot, the charts' SVG elements in the page the browser built, and the p50
# marker's label equal to the run's p50 in summary.csv. Installs Chromium (Debian's package)
# when it is missing. Run from the repository's root after `swift build -c release`.
set -euo pipefail
cd "$(dirname "$0")/.."
syncsim=.build/release/syncsim
[ -x "$syncsim" ] || swift build -c release
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ]; then
  echo "report-check: installing chromium (apt-get)"
  apt-get update -qq && apt-get install -y -qq chromium >/dev/null
  browser=$(command -v chromium)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
render() { # render HTML PNG DOM
  "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1000,3000 \
    --screenshot="$2" "file://$1" >/dev/null 2>&1
  "$browser" --headless --no-sandbox --disable-gpu --dump-dom "file://$1" 2>/dev/null >"$3"
}

"$syncsim" run Scenarios/quickstart.json --out "$work/run" >/dev/null
"$syncsim" report "$work/run" >/dev/null
render "$work/run/report.html" "$work/run.png" "$work/run.dom"
"$syncsim" sweep Scenarios/quickstart.json --set push.dropProbability=0,0.5 --seeds 1..3 --out "$work/sweep" >/dev/null
"$syncsim" report "$work/sweep" >/dev/null
render "$work/sweep/report.html" "$work/sweep.png" "$work/sweep.dom"
# Issue 58: a censored sweep (a series with no visible row, points where 1 and 2 of 6 runs had one).
"$syncsim" sweep Tests/Fixtures/censored-sweep.json --seeds 1..6 --out "$work/censored" >/dev/null
"$syncsim" report "$work/censored" >/dev/null
render "$work/censored/report.html" "$work/censored.png" "$work/censored.dom"

# Hostile names and fields (issue 39): markup that sets data-pwned on <html> if any script runs.
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
payload = lambda n: [f"<img src=x onerror=\"document.documentElement.setAttribute('data-pwned','{n}')\">",
                     f"<script>document.documentElement.setAttribute('data-pwned','{n}')</script>",
                     f"\"><svg onload=\"document.documentElement.setAttribute('data-pwned','{n}')\">"]
names = payload("name")
scenario = {"version": 1, "name": "hostile", "duration": "2h", "devices": [{"name": n} for n in names],
            "workloads": [{"devices": "all", "editsPerHour": 6}]}
json.dump(scenario, open(work + "/hostile.json", "w"))
open(work + "/payloads.json", "w").write(json.dumps(names + payload("csv")))
PY
"$syncsim" run "$work/hostile.json" --out "$work/hostile" >/dev/null
"$syncsim" report "$work/hostile" >/dev/null
cp -r "$work/run" "$work/hostile-folder"
cp -r "$work/sweep" "$work/hostile-sweep"
python3 - "$work" <<'PY'
import csv, json, sys
work = sys.argv[1]
bad = json.load(open(work + "/payloads.json"))[3:]
def rewrite(path, change):
    rows = list(csv.reader(open(path, newline="")))
    for r, row in enumerate(rows):
        for c in range(len(row)):
            new = change(r, rows[0][c], row[c])
            if new is not None: row[c] = new
    csv.writer(open(path, "w", newline="")).writerows(rows)
rewrite(work + "/hostile-folder/latency.csv", lambda r, col, v: bad[r % 3] if r and col in ("write", "observer", "writer") else None)
rewrite(work + "/hostile-folder/activities.csv", lambda r, col, v: "blocked." + bad[0] if r == 0 and col == "blocked.activityGroup" else (bad[1] if r and col == "records" else None))
rewrite(work + "/hostile-folder/timeline.csv", lambda r, col, v: bad[2] if r and col == "device" else None)
rewrite(work + "/hostile-sweep/sweep-summary.csv", lambda r, col, v: bad[0] if r == 0 and col == "push.dropProbability" else (bad[r % 3] if r and col in ("point", "mean") else None))
PY
"$syncsim" report "$work/hostile-folder" >/dev/null
"$syncsim" report "$work/hostile-sweep" >/dev/null
# Each page as written, and again without its Content-Security-Policy (escaping alone must hold),
# and a control page whose script must run (so a browser that ran nothing cannot pass).
for page in hostile hostile-folder hostile-sweep; do
  cp "$work/$page/report.html" "$work/$page.html"
  grep -v 'http-equiv="Content-Security-Policy"' "$work/$page/report.html" >"$work/$page-nocsp.html"
done
printf '<!DOCTYPE html><html><body><script>document.documentElement.setAttribute("data-pwned","control")</script></body></html>' >"$work/control.html"
for page in hostile hostile-nocsp hostile-folder hostile-folder-nocsp hostile-sweep hostile-sweep-nocsp control; do
  "$browser" --headless --no-sandbox --disable-gpu --dump-dom "file://$work/$page.html" 2>/dev/null >"$work/$page.dom"
done
python3 - "$work" <<'PY'
import html, json, re, sys
work = sys.argv[1]
ran = lambda dom: re.search(r"<html[^>]*data-pwned", dom)  # the attribute only a script sets
assert ran(open(work + "/control.dom").read()), "control page: the browser ran no script"
payloads = json.load(open(work + "/payloads.json"))
for page in ["hostile", "hostile-folder", "hostile-sweep"]:
    for variant in [page, page + "-nocsp"]:
        dom = open(f"{work}/{variant}.dom").read()
        assert not ran(dom), f"{variant}: a script ran"
        assert not re.search(r"<(img|script)\b", dom, re.I), f"{variant}: markup from the data became elements"
    shown = [p for p in payloads if html.escape(p, quote=False) in dom]
    assert shown, f"{page}: no payload shown as text"
    print(f"report-check: {page}: no script ran (with and without the CSP), {len(shown)} payloads shown as text")
PY

python3 - "$work" <<'PY'
import csv, re, struct, sys, zlib

work = sys.argv[1]

def pixels(path):
    """Decodes an 8-bit, non-interlaced RGB or RGBA PNG (what Chromium writes) into rows of bytes."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path + ": not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    assert depth == 8 and color in (2, 6), f"{path}: unexpected PNG format {depth}/{color}"
    channels = 4 if color == 6 else 3
    raw, stride, rows, previous = zlib.decompress(idat), width * channels, [], bytearray(width * channels)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = previous[i], previous[i - channels] if i >= channels else 0
            if kind == 1: line[i] = (line[i] + a) & 255
            elif kind == 2: line[i] = (line[i] + b) & 255
            elif kind == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        previous = line
    return width, height, channels, rows

def check_drawn(path):
    width, height, channels, rows = pixels(path)
    colors, inked = set(), 0
    for line in rows[::4]:
        for x in range(0, width * channels, channels * 4):
            rgb = bytes(line[x:x + 3])
            colors.add(rgb)
            inked += rgb != b"\xff\xff\xff"
    share = inked / ((height // 4) * (width // 4))
    assert share > 0.005 and len(colors) > 20, f"{path}: looks blank ({share:.1%} inked, {len(colors)} colours)"
    print(f"report-check: {path.split('/')[-1]} {width}x{height}, {share:.1%} inked, {len(colors)} colours")

def duration(seconds):  # SVG.duration in Sources/SimReport/SVG.swift
    if seconds < 1: return "%.0f ms" % (seconds * 1000)
    if seconds < 120: return "%.3f s" % seconds
    if seconds < 7200: return "%.2f min" % (seconds / 60)
    if seconds < 172800: return "%.2f h" % (seconds / 3600)
    return "%.2f d" % (seconds / 86400)

check_drawn(work + "/run.png")
check_drawn(work + "/sweep.png")
dom = open(work + "/run.dom").read()
for chart in ["latency-cdf", "stage-bars", "blocked-over-time", "device-timeline", "write-journey"]:
    assert f'<svg id="{chart}"' in dom, f"run report: no {chart} chart in the rendered page"
assert dom.count('class="cdf"') >= 1 and dom.count('class="segment"') >= 1, "run report: curves or segments missing"
summary = next(csv.DictReader(open(work + "/run/summary.csv")))
label = re.search(r'<text id="label-p50"[^>]*>([^<]*)</text>', dom).group(1)
expected = "p50 " + duration(float(summary["latency.p50"]))
assert label == expected, f"p50 label {label!r}, summary.csv says {expected!r}"
sweep = open(work + "/sweep.dom").read()
assert sweep.count('class="mean') >= 4 and 'class="interval"' in sweep, "sweep report: points or intervals missing"
censored = open(work + "/censored.dom").read()
check_drawn(work + "/censored.png")
p50 = censored[censored.index('<svg id="chart-latency_p50"'):]
p50 = p50[:p50.index("</svg>")]
assert p50.count('class="no-value"') == 4 and p50.count('data-n="0/6"') == 4, "censored sweep: the empty series is not drawn"
assert "(no value: no visible row)" in p50, "censored sweep: the legend does not name the empty series"
assert 'data-n="1/6"' in p50 and 'data-n="2/6"' in p50 and ">1/6</text>" in p50, "censored sweep: n/runs not shown"
assert p50.count('class="series"') == 1, "censored sweep: a line joins a censored point"
print("report-check: censored sweep: 4 empty points, n/runs labels, no line through a censored point")
# The numeric factor is drawn on a numeric axis, in the DOM the browser built; each chart has a file.
assert re.search(r'<svg id="chart-latency_p50" data-x-axis="linear"', sweep), "sweep report: the numeric factor is not on a numeric axis"
assert 'class="series"' in sweep and 'class="band"' in sweep, "sweep report: lines or bands missing"
import os
assert os.path.exists(work + "/sweep/report-latency_p50.svg"), "sweep report: no report-latency_p50.svg beside the page"
print(f"report-check: ok (p50 label {label!r} matches summary.csv)")
PY
