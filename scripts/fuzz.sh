#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan+UBSan, build dir ./build-fuzz or
# $TILESCHED_FUZZ_BUILD_DIR) and runs each for a share of MINUTES (default 0.5:
# the CI smoke, 15 s per target). Seeds: examples/*.py and tests/diagnostics/*.py
# for the front end; the scheduler fuzzer decodes raw bytes into kernels.
# A crash leaves its input in build-fuzz/artifacts/ and fails the script;
# rerun one with `build-fuzz/fuzz/fuzz_frontend FILE`.
#
#   scripts/fuzz.sh          # smoke, ~30 s of fuzzing after the build
#   scripts/fuzz.sh 20       # 10 minutes per target
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TILESCHED_FUZZ_BUILD_DIR:-$root/build-fuzz}
minutes=${1:-0.5}
seconds=$(awk -v m="$minutes" 'BEGIN { s = int(m * 60 / 2); print (s < 1 ? 1 : s) }')

"$root/scripts/install-deps.sh"
command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ not found (apt-get install clang)" >&2; exit 2; }
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTILESCHED_FUZZ=ON ${TILESCHED_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j "${TILESCHED_JOBS:-2}" --target fuzz_frontend fuzz_schedule

mkdir -p "$build/corpus/frontend" "$build/corpus/schedule" "$build/artifacts"
cp "$root"/examples/*.py "$root"/tests/diagnostics/*.py "$build/corpus/frontend/"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
run() {  # NAME EXTRA-FLAGS...
  local name=$1
  shift
  echo "== fuzz_$name: $seconds s"
  "$build/fuzz/fuzz_$name" "$build/corpus/$name" -max_total_time="$seconds" -timeout=60 \
    -rss_limit_mb=2048 -print_final_stats=1 "$@" \
    -artifact_prefix="$build/artifacts/$name-" 2>"$build/fuzz_$name.log" || {
    status=1
    echo "fuzz_$name FAILED; log: $build/fuzz_$name.log" >&2
    grep -A40 -m1 -E "ERROR|fuzz_$name:|deadly|timeout" "$build/fuzz_$name.log" >&2 || true
  }
  grep -E "stat::number_of_executed_units|stat::new_units_added" "$build/fuzz_$name.log" || true
}
# The scheduler fuzzer runs Z3 (about one input a second): full-length inputs
# from the start, seeded with a few fixed byte strings.
for i in 1 2 3 4; do
  printf '%s' "tilesched-schedule-seed-$i-$(printf '%0*d' $((i * 24)) 0)" \
    >"$build/corpus/schedule/seed_$i"
done
run frontend -max_len=8192 -dict="$root/fuzz/frontend.dict"
run schedule -max_len=256 -len_control=0
exit $status
