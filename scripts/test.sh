#!/usr/bin/env bash
# Runs every test: builds (incrementally), checks the Python with ruff, then the
# C++ unit tests (ctest) and the Python tests (pytest). Does the whole set-up
# first on a fresh machine.
#
#   bash scripts/test.sh                 # everything
#   bash scripts/test.sh -k golden       # extra arguments go to pytest
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --tests

PY=${PYTHON:-python3}

echo "== ruff"
"$PY" -m ruff check .

build_dir=$(ls -d build/cp3* 2>/dev/null | head -n 1)
[[ -n "$build_dir" ]] || { echo "test: no build directory under build/" >&2; exit 1; }

echo "== C++ unit tests (ctest, $build_dir)"
ctest --test-dir "$build_dir" --output-on-failure -j2

echo "== Python tests (pytest)"
set +e
"$PY" -m pytest -q "$@"
rc=$?
set -e
if [[ $rc -eq 5 ]]; then
  echo "test: pytest collected no tests: that is a failure here" >&2
  exit 1
fi
exit $rc
