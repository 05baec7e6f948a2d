#!/usr/bin/env bash
# Sets up what the demo needs on a fresh machine (the project's virtual
# environment .venv with fastenough and torch; not the test tools), then runs
# the main job on the bundled demo: `fastenough run` over a small, deliberately
# wasteful evaluation workload (CPU by default, CUDA when present), and prints
# its report.
# `bash scripts/demo.sh --fixed` runs the same computation with the waste removed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec "${FASTENOUGH_VENV:-.venv}/bin/python" -m fastenough demo "$@"
