#!/usr/bin/env bash
# Command 1 of the README: build tilesched (installing Debian packages when
# missing) and run it. Without arguments it schedules the bundled vec_add
# example with the Z3 scheduler (`--emit schedule`), then runs it on the
# simulated AI core: versions, flags, cycles, the verdict and an SVG timeline
# (build/vec_add.svg). With arguments it passes them to `tilesched`, e.g.
#   ./run.sh compile examples/gemm_l1.py --emit report-json
set -euo pipefail
root=$(cd "$(dirname "$0")" && pwd)
"$root/scripts/build.sh" >&2
build=${TILESCHED_BUILD_DIR:-$root/build}
if [ $# -eq 0 ]; then
  "$build/tilesched" compile "$root/examples/vec_add.py" --emit schedule
  echo
  exec "$build/tilesched" run "$root/examples/vec_add.py" --timeline "$build/vec_add.svg"
fi
exec "$build/tilesched" "$@"
