#!/usr/bin/env bash
# The measure of issue 7: feed every kernel file of a folder to tilesched as it
# is (no -D, no --func) and say how far each one gets.
#
#   scripts/upstream-measure.sh [--compare] DIR [TIMEOUT_SECONDS=120]
#
# --compare (issue 17 §4): `tilesched run FILE --compare` instead of a plain
# run, and per file the cycles of auto, none and double of each kernel; the
# summary lists every kernel where auto is slower than a peer that passed.
#
# For every DIR/*.py (sorted): `tilesched compile FILE`; when that succeeds,
# `tilesched run FILE` (default --schedule auto) under a per-file timeout. One
# row per file:  FILE | compile: ok or the first error line | run: PASS, FAIL
# (exit status and the first error line), TIMEOUT or "-" (not run), with the
# run's wall-clock seconds ("PASS 1.2 s"; issue 23: every file under 5 s). A summary
# count ends the output. The binary is $TILESCHED, else build/tilesched.
# The folder's files are never copied or changed.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
compare=0
if [ "${1:-}" = "--compare" ]; then
  compare=1
  shift
fi
dir=${1:?usage: scripts/upstream-measure.sh [--compare] DIR [TIMEOUT_SECONDS]}
limit=${2:-120}
bin=${TILESCHED:-$root/build/tilesched}
[ -x "$bin" ] || { echo "no tilesched binary at $bin (build first)" >&2; exit 2; }
[ -d "$dir" ] || { echo "no folder $dir" >&2; exit 2; }

# First "error:" line of a log, without the file path in front, or the first line.
first_error() {
  local line
  line=$(grep -m1 -E '(^|: )error: ' "$1" || true)
  [ -z "$line" ] && line=$(grep -m1 -v '^[[:space:]]*$' "$1" || true)
  line=${line#"$2":}
  printf '%s' "${line:0:160}"
}

total=0 compiled=0 passed=0 failed=0 timeouts=0 slower=""
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%s | %s | %s\n' "file" "compile" "run"
while IFS= read -r -d '' file; do
  name=$(basename "$file")
  total=$((total + 1))
  if "$bin" compile "$file" >"$tmp/compile.log" 2>&1; then
    compiled=$((compiled + 1))
    started=$(date +%s.%N)
    if [ "$compare" = 1 ]; then
      timeout "$limit" "$bin" run "$file" --compare >"$tmp/run.log" 2>&1
    else
      timeout "$limit" "$bin" run "$file" >"$tmp/run.log" 2>&1
    fi
    status=$?
    seconds=$(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f s", b - a }')
    cycles=""
    if [ "$compare" = 1 ]; then
      # One "auto A / none N / double D" per kernel table; "auto slower" marks.
      cycles=$(awk '
        /^compare / { if (a != "") print a; a = ""; n = ""; d = ""; name = $2 }
        /^  (auto|none|double) / {
          v[$1] = ($2 == "PASS") ? $3 : "FAIL"
          if ($1 == "double") {
            slow = ""
            if (v["auto"] != "FAIL" && v["none"] != "FAIL" && v["none"] + 0 < v["auto"] + 0) slow = slow " < none"
            if (v["auto"] != "FAIL" && v["double"] != "FAIL" && v["double"] + 0 < v["auto"] + 0) slow = slow " < double"
            a = sprintf("%s auto %s / none %s / double %s%s", name, v["auto"], v["none"], v["double"], slow == "" ? "" : " AUTO SLOWER" slow)
            print a; a = ""
          }
        }' "$tmp/run.log" | paste -sd ';' -)
      if grep -q "AUTO SLOWER" <<<"$cycles"; then
        slower="$slower  $name: $cycles"$'\n'
      fi
    fi
    if [ "$status" -eq 0 ]; then
      passed=$((passed + 1))
      run="PASS $seconds${cycles:+ | $cycles}"
    elif [ "$status" -eq 124 ]; then
      timeouts=$((timeouts + 1))
      run="TIMEOUT after ${limit}s"
    else
      failed=$((failed + 1))
      run="FAIL $seconds exit $status: $(first_error "$tmp/run.log" "$file")${cycles:+ | $cycles}"
    fi
    printf '%s | ok | %s\n' "$name" "$run"
  else
    printf '%s | %s | -\n' "$name" "$(first_error "$tmp/compile.log" "$file")"
  fi
done < <(find "$dir" -maxdepth 1 -name '*.py' -print0 | sort -z)
echo
echo "files: $total  compile ok: $compiled  run PASS: $passed  run FAIL: $failed  run TIMEOUT: $timeouts"
if [ "$compare" = 1 ]; then
  if [ -n "$slower" ]; then
    echo "auto slower than a peer:"
    printf '%s' "$slower"
  else
    echo "auto slower than a peer: none"
  fi
fi
