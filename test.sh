#!/usr/bin/env bash
# Command 2 of the README: build tilesched and run every test (CTest).
# TILESCHED_SANITIZE=1 builds into ./build-asan with AddressSanitizer+UBSan.
set -euo pipefail
root=$(cd "$(dirname "$0")" && pwd)
if [ "${TILESCHED_SANITIZE:-0}" = 1 ]; then
  export TILESCHED_BUILD_DIR=${TILESCHED_BUILD_DIR:-$root/build-asan}
  export TILESCHED_CMAKE_ARGS="-DTILESCHED_SANITIZE=ON ${TILESCHED_CMAKE_ARGS:-}"
fi
build=${TILESCHED_BUILD_DIR:-$root/build}
"$root/scripts/build.sh"
ctest --test-dir "$build" --output-on-failure -j "${TILESCHED_JOBS:-2}"
