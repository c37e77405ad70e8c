#!/usr/bin/env bash
# Runs the randomized differential tester (tests/random, issue 11) on any number
# of seeds with the full generator profile, in every mode the binary runs.
#   scripts/random-kernels.sh [SEEDS=0:1000] [extra run_random.py options...]
#   scripts/random-kernels.sh 0:5000 --jobs 2 --out /tmp/rnd
# Failing kernels and their minimised versions go to --out (default: a temp dir).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seeds=${1:-0:1000}
[ $# -gt 0 ] && shift
exec /usr/bin/python3 "$root/tests/random/run_random.py" \
  --tilesched "${TILESCHED:-${TILESCHED_BUILD_DIR:-$root/build}/tilesched}" --seeds "$seeds" --quiet "$@"
