#!/usr/bin/env bash
# The whole sanitizer suite and the fuzz smoke on their own (./test.sh, what
# CI runs, already runs the sanitizer subset of tests/README.md):
#  1. the whole test suite under AddressSanitizer + UBSan (build dir
#     ./build-asan, `TILESCHED_SANITIZE=1 ./test.sh`);
#  2. the libFuzzer smoke (scripts/fuzz.sh, 15 s per target) when clang is
#     installed (build dir ./build-fuzz).
# Exits non-zero on the first failing step. TILESCHED_FUZZ_MINUTES overrides
# the smoke length; TILESCHED_SKIP_FUZZ=1 skips it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
start=$(date +%s)
echo "== sanitizer suite (build-asan)"
TILESCHED_SANITIZE=1 "$root/test.sh"
echo "== sanitizer suite: $(($(date +%s) - start)) s"
if [ "${TILESCHED_SKIP_FUZZ:-0}" != 1 ]; then
  if command -v clang++ >/dev/null; then
    fuzz_start=$(date +%s)
    "$root/scripts/fuzz.sh" "${TILESCHED_FUZZ_MINUTES:-0.5}"
    echo "== fuzz smoke: $(($(date +%s) - fuzz_start)) s"
  else
    echo "== fuzz smoke skipped: clang++ not installed" >&2
  fi
fi
echo "== ci-sanitize: $(($(date +%s) - start)) s"
