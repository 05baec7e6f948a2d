#!/usr/bin/env bash
# Sets everything up on a fresh machine, then runs the main job on the bundled
# demo: `fastenough run` over a small, deliberately wasteful evaluation
# workload (CPU by default, CUDA when present), and prints its report.
# `bash scripts/demo.sh --fixed` runs the same computation with the waste removed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec python3 -m fastenough demo "$@"
