#!/usr/bin/env bash
# Sets everything up on a fresh machine, then runs the main job on the bundled
# demo input and prints its report.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec python3 -m fastenough analyze examples/traces/train_a100_rank3.json.gz
