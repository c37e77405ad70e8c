#!/usr/bin/env bash
# Installs the Debian packages tilesched builds and tests with (python3-numpy:
# the oracle tests, run with /usr/bin/python3; librsvg2-bin: rsvg-convert, which
# the timeline test renders the SVG with; clang-format: test.sh checks the
# formatting), when any is missing.
# Only Debian's archive is used; nothing else is downloaded.
set -euo pipefail
packages=(cmake ninja-build g++ libz3-dev libgtest-dev libgmock-dev libbenchmark-dev
          libcli11-dev nlohmann-json3-dev libfmt-dev python3-numpy librsvg2-bin clang-format
          pybind11-dev python3-dev python3-pytest)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "tilesched: installing missing Debian packages: ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
