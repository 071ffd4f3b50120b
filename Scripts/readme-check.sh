#!/usr/bin/env bash
# Runs the README's shell blocks as a new user pastes them, in a clean clone of HEAD, with only the
# Swift toolchain and the system's basic tools on PATH: no python3, no xmllint, no Chromium (the
# README promises nothing else). Then `syncsim report` and `syncsim check` as the README writes
# them. The one change: the install line's /usr/local/bin/ becomes a folder of the clone's own
# (CI must not write outside its work tree), which goes first on PATH as /usr/local/bin would.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# In place when the repository is itself a clean clone that has never been built (as CI's is):
# the README's release build is then the one CI's later steps use, not a second cold one (it
# was 224 s of the 30 min CI took). Anywhere else, in a clean clone of HEAD.
if [ -z "$(git -C "$repo" status --porcelain)" ] && [ ! -e "$repo/.build" ]; then
  clone="$repo"
  echo "readme-check: in place (a clean clone, never built)"
else
  clone="$work/clone"
  git clone -q "$repo" "$clone"
fi
mkdir "$work/tools" "$work/bin"
swift_dir="$(dirname "$(readlink -f "$(command -v swift)")")"
for dir in /usr/local/bin /usr/bin /bin; do
  for tool in "$dir"/*; do
    name="$(basename "$tool")"
    case "$name" in python* | pip* | xmllint | chromium* | google-chrome* | node | npm) continue ;; esac
    [ -e "$work/tools/$name" ] || ln -s "$tool" "$work/tools/$name"
  done
done
export PATH="$work/bin:$swift_dir:$work/tools"
for tool in python3 xmllint chromium; do
  if command -v "$tool" >/dev/null 2>&1; then
    echo "readme-check: $tool is still on PATH ($(command -v "$tool"))" >&2
    exit 1
  fi
done
cd "$clone"
{
  # The README's first two commands are what a newcomer waits for most: each is timed, the
  # build included, as they meet it (issue 73).
  echo 'timed() { local start=$SECONDS; "$@"; echo "readme-check: time: $((SECONDS - start)) s for: $*" >&2; }'
  awk '/^```sh/{inside=1; next} /^```/{inside=0} inside' README.md | sed "s|/usr/local/bin/|$work/bin/|" \
    | sed -E 's/^(swift (run|test|build)[^#]*)/timed \1/'
  echo 'syncsim report Results/quickstart'
  echo 'syncsim check quickstart'
} > "$work/commands.sh"
echo "readme-check: running $(grep -c . "$work/commands.sh") lines of the README in a clean clone"
bash -euo pipefail "$work/commands.sh" > "$work/out.txt" 2>&1 || {
  # A failed test's lines can be far above the end: show them first, then the end.
  grep -E "^✘|: error: " "$work/out.txt" | head -80 >&2 || true
  echo "..." >&2
  tail -40 "$work/out.txt" >&2
  echo "readme-check: a README command failed (above)" >&2
  exit 1
}
# The times of the README's swift commands (builds included), then the test suite's own line.
grep -E "^readme-check: time: " "$work/out.txt" || true
# The test suite's own line, for the CI log: how many tests and how long they took.
grep -E "^✔ Test run with|^✘ Test run with" "$work/out.txt" | sed 's/^/readme-check: swift test: /' || true
grep -q "1 passed, 0 failed" "$work/out.txt"
grep -q "Test run with .* passed" "$work/out.txt"
test -s Results/quickstart/report.html
# The README's commands leave a clean clone clean (issue 72): every committed result is
# reproduced byte for byte, and what the walkthrough writes is ignored.
changed="$(git status --porcelain)"
if [ -n "$changed" ]; then
  echo "readme-check: the README's commands left the clone changed (git status):" >&2
  echo "$changed" >&2
  echo "readme-check: a stale committed result is recorded with: syncsim check --update NAME" >&2
  exit 1
fi
echo "readme-check: git status is clean after the README's commands"
echo "readme-check: ok (every README command passed with only the Swift toolchain)"
