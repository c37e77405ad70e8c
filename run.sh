#!/usr/bin/env bash
# Command 1 of the README: build tilesched (installing Debian packages when
# missing) and run it. Without arguments it compiles the bundled vec_add
# example and prints its IR and buffer table; with arguments it passes them to
# `tilesched`, e.g. ./run.sh compile examples/gemm_l1.py --emit report-json
set -euo pipefail
root=$(cd "$(dirname "$0")" && pwd)
"$root/scripts/build.sh" >&2
build=${TILESCHED_BUILD_DIR:-$root/build}
if [ $# -eq 0 ]; then
  exec "$build/tilesched" compile "$root/examples/vec_add.py"
fi
exec "$build/tilesched" "$@"
