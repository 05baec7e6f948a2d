#!/usr/bin/env bash
# GPU check of the measurement API (fastenough.time windows, sweep_batch up to a
# real out-of-memory, abba) on one CUDA device; see tests/gpu/check_measure_cuda.py.
#   scripts/gpu_check.sh              # uses $PYTHON, else python3
# Prints one line per check and a JSON summary; exit 0 all passed or skipped (no
# CUDA: says so), 1 a check failed, 124 it ran past 5 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
exec timeout 300 "$PY" tests/gpu/check_measure_cuda.py "$@"
