#!/usr/bin/env bash
# Configures and builds tilesched into ./build (or $TILESCHED_BUILD_DIR).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TILESCHED_BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=${TILESCHED_BUILD_TYPE:-RelWithDebInfo} ${TILESCHED_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j "${TILESCHED_JOBS:-2}"
