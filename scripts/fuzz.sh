#!/usr/bin/env bash
# Runs the libFuzzer targets (fuzz/, docs/fuzzing.md) longer than CI does.
# Usage: scripts/fuzz.sh [seconds per target]   (default: 600)
# Builds build/fuzz like `scripts/test.sh fuzz`; the corpus grows in
# build/fuzz/corpus/<target>/ (copy good finds into fuzz/corpus/ by hand,
# e.g. after `-merge=1`), crashes land in build/fuzz/crash-*.
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZ_EXPLORE_SECONDS="${1:-600}" exec scripts/test.sh fuzz
