#!/usr/bin/env bash
# Installs the Debian packages eagervm builds with, if any is missing.
# Usage: scripts/install_deps.sh [extra packages...]   (as root, or with sudo available)
set -euo pipefail
pkgs=(build-essential cmake ninja-build pkg-config libabsl-dev libfmt-dev libgtest-dev libgmock-dev
      libbenchmark-dev libopenblas-dev nlohmann-json3-dev libdlpack-dev libopenmpi-dev openmpi-bin python3 python3-numpy "$@")
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "eagervm: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
