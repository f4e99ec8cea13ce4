#!/usr/bin/env bash
# Installs the peer libraries that bench/peers/ compares eagervm against, and
# matplotlib for tools/plot_inflight.py. Benchmarks only: none of these is ever
# linked into the eagervm library.
# Usage: scripts/install_peers.sh   (as root, or with sudo available)
set -euo pipefail
cd "$(dirname "$0")/.."
# libtorch-dev 1.13.1, libstarpu-dev 1.3.10, libtbb-dev 2021.8 on Debian 12; python3-sklearn
# ships the digits data set of the models suite (bench/models/digits.h).
scripts/install_deps.sh libtorch-dev libstarpu-dev libtbb-dev python3-matplotlib python3-sklearn
