#!/usr/bin/env bash
# Runs the tests: builds (incrementally), checks the Python with ruff, then the
# C++ unit tests (ctest) and the Python tests (pytest), all in the project's
# virtual environment (.venv, or FASTENOUGH_VENV). Does the whole set-up first
# on a fresh machine.
#
#   bash scripts/test.sh                    # the default run (times and disk: README)
#   bash scripts/test.sh -k golden          # extra arguments go to pytest
#   bash scripts/test.sh tests/python/render  # one room's tests (tests/python/<room>/)
#   bash scripts/test.sh -m unit            # only the in-process tests (pytest markers: conftest.py)
#   FASTENOUGH_SLOW=1 bash scripts/test.sh  # also the tests of tests/slow_tests.txt (CI does)
#   FASTENOUGH_REAL=1 bash scripts/test.sh  # also the slow real-program runs (CI does)
#   FASTENOUGH_VISION=1 ...                 # also make build/venv-vision (scripts/setup.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --tests

PY=${FASTENOUGH_VENV:-.venv}/bin/python
# The tests run inside the environment, as after `source .venv/bin/activate`:
# the programs they start by name (torchrun) come from it.
PATH="$(cd "$(dirname "$PY")" && pwd):$PATH"
export PATH

echo "== ruff"
"$PY" -m ruff check .

build_dir=$(ls -d build/cp3* 2>/dev/null | head -n 1)
[[ -n "$build_dir" ]] || { echo "test: no build directory under build/" >&2; exit 1; }

echo "== C++ unit tests (ctest, $build_dir)"
set +e
ctest --test-dir "$build_dir" --output-on-failure -j2 --output-junit ctest-junit.xml
ctest_rc=$?
set -e
# ctest shows a skipped test as "***Skipped" without its reason: the reasons,
# from the output ctest kept (GTEST_SKIP's message).
"$PY" scripts/ctest_skips.py "$build_dir/ctest-junit.xml"
(( ctest_rc == 0 )) || exit "$ctest_rc"

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
