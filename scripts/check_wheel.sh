#!/usr/bin/env bash
# Builds the sdist and the wheel (python -m build, C++ dependencies from
# third_party/ so that nothing of the system's is needed), installs the wheel
# into a fresh virtual environment that has no build tools and no torch, and
# runs it as a user would: --version, analyze on the bundled example trace
# (torch is not a dependency of the CLI), explain (the finding catalog and the
# report schema are in the wheel), then, after `pip install
# torch==2.13.0`, the demo.
#
#   bash scripts/check_wheel.sh            # work in build/wheel-check
set -euo pipefail
cd "$(dirname "$0")/.."
# The project's virtual environment (scripts/setup.sh makes it): `build` goes there.
PY=${FASTENOUGH_VENV:-.venv}/bin/python
[[ -x $PY ]] || { echo "check_wheel: no $PY: run bash scripts/setup.sh first" >&2; exit 1; }
work=build/wheel-check
rm -rf "$work"
mkdir -p "$work"

echo "== python -m build (sdist + wheel, vendored C++ dependencies)"
"$PY" -m pip install -q --disable-pip-version-check build 2>&1 | grep -v -E "Running pip as" || true
# The wheel is built from the sdist, as pip does from PyPI: it proves the sdist
# is complete (third_party/, REVISION) and that its wheel names the revision.
# Its own CMake build directory: the editable install's (build/<tag>) keeps
# its configuration (system libraries) and objects.
FASTENOUGH_VENDORED_DEPS=ON "$PY" -m build --outdir "$work/dist" \
  -C build-dir="$work/cmake" . >> "$work/build.log" 2>&1 || {
  tail -40 "$work/build.log"; echo "check_wheel: python -m build failed" >&2; exit 1; }
ls "$work/dist"
sdist=$(ls "$work"/dist/fastenough-*.tar.gz)
wheel=$(ls "$work"/dist/fastenough-*.whl)
tar -tzf "$sdist" > "$work/sdist-files.txt"  # (grep -q on a pipe would SIGPIPE tar)
grep -q "third_party/simdjson/simdjson.h" "$work/sdist-files.txt" || {
  echo "check_wheel: the sdist lacks third_party/" >&2; exit 1; }
grep -q "/REVISION$" "$work/sdist-files.txt" || {
  echo "check_wheel: the sdist lacks REVISION (its wheel could not name the git revision)" >&2; exit 1; }

echo "== fresh venv, wheel only (no torch, no cmake, no compiler needed)"
"$PY" -m venv "$work/venv"
venv_py="$work/venv/bin/python"
"$venv_py" -m pip install -q --disable-pip-version-check "$wheel"
# Nothing from the source tree: run from an empty directory.
mkdir -p "$work/empty"
trace=$(realpath examples/traces/train_a100_rank3.json.gz)
(cd "$work/empty" && ../venv/bin/fastenough --version)
(cd "$work/empty" && ../venv/bin/fastenough --version) > "$work/version.txt"
grep -q -E "git revision: [0-9a-f]{12}" "$work/version.txt" || {
  echo "check_wheel: the wheel does not name its git revision" >&2; exit 1; }
grep -q "simdjson .* (vendored)" "$work/version.txt" || {
  echo "check_wheel: the wheel was not built with the vendored simdjson" >&2; exit 1; }
(cd "$work/empty" && "../venv/bin/python" -c "import importlib.util as u; assert u.find_spec('torch') is None")
(cd "$work/empty" && ../venv/bin/fastenough analyze --json "$trace" > analyze.json)
"$venv_py" -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['schema']=='fastenough.report/1' and r['steps']['count']==6, r['steps']" "$work/empty/analyze.json"
echo "analyze without torch: ok"
# The docs a user needs come with the wheel: the finding catalog and the schema.
(cd "$work/empty" && ../venv/bin/fastenough explain sync-in-loop --md > explain.txt)
grep -q "^## sync-in-loop" "$work/empty/explain.txt" || {
  echo "check_wheel: fastenough explain printed no catalog section from the wheel" >&2; exit 1; }
(cd "$work/empty" && ../venv/bin/fastenough explain > explain-all.txt)
grep -q "^padding-waste  *Padded tokens in batches" "$work/empty/explain-all.txt" || {
  echo "check_wheel: fastenough explain lists no codes from the wheel" >&2; exit 1; }
(cd "$work/empty" && "../venv/bin/python" -c "from fastenough.schema import report_schema; assert report_schema()['title'] == 'fastenough.report/1'")
echo "explain and the report schema from the wheel: ok"
# The MCP server is an optional extra: without `mcp` the CLI works, `fastenough mcp`
# says how to install it, and the skill document ships in the wheel.
(cd "$work/empty" && "../venv/bin/python" -c "import importlib.util as u; assert u.find_spec('mcp') is None")
(cd "$work/empty" && ../venv/bin/fastenough mcp --skill > skill.md)
grep -q "Measure before changing" "$work/empty/skill.md" || {
  echo "check_wheel: fastenough mcp --skill printed no skill from the wheel" >&2; exit 1; }
set +e
(cd "$work/empty" && ../venv/bin/fastenough mcp > mcp.out 2> mcp.err < /dev/null)
mcp_rc=$?
set -e
[[ $mcp_rc -eq 2 ]] && grep -q 'pip install "fastenough\[agent\]"' "$work/empty/mcp.err" || {
  cat "$work/empty/mcp.err"; echo "check_wheel: fastenough mcp without mcp: exit $mcp_rc" >&2; exit 1; }
echo "fastenough mcp without the agent extra: ok"

echo "== the same venv with the torch extra (torch, numpy): the demo"
"$venv_py" -m pip install -q --disable-pip-version-check "$wheel[torch]"
(cd "$work/empty" && ../venv/bin/fastenough demo --items 16 > demo.out 2> demo.err) || {
  cat "$work/empty/demo.err"; echo "check_wheel: the demo failed from the wheel" >&2; exit 1; }
# The extra brings what the demo's checks and recorded outputs need (numpy,
# which torch itself does not require).
if grep -q -i "numpy is not available" "$work/empty/demo.out" "$work/empty/demo.err"; then
  echo "check_wheel: the demo ran without numpy: the torch extra lacks it" >&2; exit 1
fi
echo "demo from the wheel: ok"
