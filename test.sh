#!/usr/bin/env bash
# Command 2 of the README, and what CI runs (.ci/run): check the formatting
# (scripts/check-format.sh), build tilesched with warnings as errors and run
#  1. the whole test suite (CTest, build dir ./build);
#  2. the sanitizer suite: the tests labelled $TILESCHED_SANITIZE_LABELS
#     (a ctest -L regex, default "unit|regress": every GoogleTest case and the
#     random regression kernels; "." for all) built with AddressSanitizer +
#     UBSan into ./build-asan (tests/README.md "Sanitizers in CI": what, why);
#  3. the libFuzzer smoke (scripts/fuzz.sh, 15 s per target) when
#     TILESCHED_FUZZ_SMOKE=1 and clang++ is installed (build dir ./build-fuzz).
# Stops at the first failing step and prints the time of each.
#
# TILESCHED_QUICK=1 runs step 1 only (local use; CI must not set it).
# TILESCHED_SANITIZE=1 runs only the whole suite under the sanitizers.
set -euo pipefail
root=$(cd "$(dirname "$0")" && pwd)
jobs=${TILESCHED_JOBS:-2}
start=$(date +%s)

suite() {  # BUILD-DIR CTEST-ARGS...
  local build=$1
  shift
  TILESCHED_BUILD_DIR=$build "$root/scripts/build.sh"
  ctest --test-dir "$build" --output-on-failure -j "$jobs" "$@"
}

sanitized() {  # CTEST-ARGS...
  TILESCHED_CMAKE_ARGS="-DTILESCHED_SANITIZE=ON ${TILESCHED_CMAKE_ARGS:-}" \
    suite "${TILESCHED_ASAN_BUILD_DIR:-$root/build-asan}" "$@"
}

if [ "${TILESCHED_SANITIZE:-0}" = 1 ]; then
  sanitized
  exit 0
fi

"$root/scripts/install-deps.sh"
"$root/scripts/check-format.sh"
# -Werror in the normal tree only: GCC's sanitizer instrumentation at -O1
# gives false positives (see CMakeLists.txt), and the warnings are the same code.
TILESCHED_CMAKE_ARGS="-DTILESCHED_WERROR=ON ${TILESCHED_CMAKE_ARGS:-}" \
  suite "${TILESCHED_BUILD_DIR:-$root/build}"
echo "== test suite: $(($(date +%s) - start)) s"
[ "${TILESCHED_QUICK:-0}" = 1 ] && exit 0

step=$(date +%s)
labels=${TILESCHED_SANITIZE_LABELS:-unit|regress}
sanitized ${labels:+-L "$labels"}
echo "== sanitizer suite${labels:+ (labels $labels)}: $(($(date +%s) - step)) s"

if [ "${TILESCHED_FUZZ_SMOKE:-0}" = 1 ]; then
  step=$(date +%s)
  if command -v clang++ >/dev/null; then
    "$root/scripts/fuzz.sh" "${TILESCHED_FUZZ_MINUTES:-0.5}"
    echo "== fuzz smoke: $(($(date +%s) - step)) s"
  else
    echo "== fuzz smoke skipped: clang++ not installed" >&2
  fi
fi
echo "== test.sh: $(($(date +%s) - start)) s"
