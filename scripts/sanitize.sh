#!/usr/bin/env bash
# The C++ tests once under AddressSanitizer + UBSan, and each libFuzzer target
# (the trace reader, gzip trace input, the safetensors / .npy / .npz readers,
# the Python parser, lint) for a bounded time (FUZZ_SECONDS, default 60 per
# target), seeded with inputs of its own kind (tests/data/fuzz/ holds the
# seeds of the binary formats, made by its make_seeds.py). The last line says
# how many inputs were run in all.
#
#   bash scripts/sanitize.sh                 # sanitizers, then every fuzz target
#   FUZZ_ONLY=1 bash scripts/sanitize.sh     # only the fuzz targets
#   FUZZ_TARGETS="npz_reader_fuzzer" ...     # only these targets
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ -z "${FUZZ_ONLY:-}" ]]; then
  echo "== C++ tests under ASan + UBSan"
  cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=Debug -DFASTENOUGH_SANITIZE=ON \
    -DFASTENOUGH_BUILD_TESTS=ON -DFASTENOUGH_BUILD_PYTHON=OFF -DFASTENOUGH_BUILD_TOOLS=OFF >/dev/null
  cmake --build build/asan -j2
  set +e
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build/asan --output-on-failure -j2 --output-junit ctest-junit.xml
  ctest_rc=$?
  set -e
  # Why each skipped test skipped (ctest itself does not say).
  "${FASTENOUGH_VENV:-.venv}/bin/python" scripts/ctest_skips.py build/asan/ctest-junit.xml || true
  (( ctest_rc == 0 )) || exit "$ctest_rc"
fi

fuzzers=(cpp/tools/*_fuzzer.cc)
if [[ -e "${fuzzers[0]}" ]]; then
  echo "== fuzzing (${FUZZ_SECONDS:-60} s per target)"
  # The core is instrumented too (fuzzer-no-link + sanitizers), so coverage
  # guides the fuzzer through the reader, not only through the target file.
  CC=clang CXX=clang++ cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DFASTENOUGH_FUZZ=ON -DFASTENOUGH_SANITIZE=ON -DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link \
    -DFASTENOUGH_BUILD_PYTHON=OFF >/dev/null
  cmake --build build/fuzz -j2
  total=0
  for src in "${fuzzers[@]}"; do
    name=$(basename "$src" .cc)
    if [[ -n "${FUZZ_TARGETS:-}" && " $FUZZ_TARGETS " != *" $name "* ]]; then continue; fi
    seeds=$(mktemp -d)
    case "$name" in
      python_parser_fuzzer|lint_source_fuzzer) cp tests/data/pysrc/*.py tests/data/lint/research/*.py "$seeds"/ ;;
      safetensors_reader_fuzzer) cp tests/data/fuzz/safetensors/* "$seeds"/ ;;
      npy_reader_fuzzer) cp tests/data/fuzz/npy/* "$seeds"/ ;;
      npz_reader_fuzzer) cp tests/data/fuzz/npz/* "$seeds"/ ;;
      gzip_trace_fuzzer) cp tests/data/fuzz/gzip/* "$seeds"/ ;;
      *) cp tests/data/traces/* "$seeds"/ 2>/dev/null || true ;;
    esac
    log=$(mktemp)
    set +e
    "build/fuzz/cpp/tools/$name" -max_total_time="${FUZZ_SECONDS:-60}" -max_len=65536 \
      -rss_limit_mb=4096 "$seeds" >"$log" 2>&1
    rc=$?
    set -e
    tail -n 5 "$log"
    # libFuzzer's last line: "Done 1234567 runs in 61 second(s)"
    runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -n 1)
    echo "fuzz: $name: ${runs:-?} executions, exit $rc"
    total=$((total + ${runs:-0}))
    rm -rf "$seeds" "$log"
    if (( rc != 0 )); then echo "fuzz: $name failed" >&2; exit "$rc"; fi
  done
  echo "fuzz: $total executions in all"
fi
