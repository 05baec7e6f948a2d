#!/usr/bin/env bash
# The C++ tests once under AddressSanitizer + UBSan, and each libFuzzer target
# (the trace reader, the Python parser) for a bounded time (FUZZ_SECONDS,
# default 60 per target), seeded with inputs of its own kind.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== C++ tests under ASan + UBSan"
cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=Debug -DFASTENOUGH_SANITIZE=ON \
  -DFASTENOUGH_BUILD_TESTS=ON -DFASTENOUGH_BUILD_PYTHON=OFF -DFASTENOUGH_BUILD_TOOLS=OFF >/dev/null
cmake --build build/asan -j2
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build/asan --output-on-failure -j2

fuzzers=(cpp/tools/*_fuzzer.cc)
if [[ -e "${fuzzers[0]}" ]]; then
  echo "== fuzzing (${FUZZ_SECONDS:-60} s per target)"
  # The core is instrumented too (fuzzer-no-link + sanitizers), so coverage
  # guides the fuzzer through the reader, not only through the target file.
  CC=clang CXX=clang++ cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DFASTENOUGH_FUZZ=ON -DFASTENOUGH_SANITIZE=ON -DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link \
    -DFASTENOUGH_BUILD_PYTHON=OFF >/dev/null
  cmake --build build/fuzz -j2
  for src in "${fuzzers[@]}"; do
    name=$(basename "$src" .cc)
    seeds=$(mktemp -d)
    case "$name" in
      python_parser_fuzzer|lint_source_fuzzer) cp tests/data/pysrc/*.py tests/data/lint/research/*.py "$seeds"/ ;;
      *) cp tests/data/traces/* "$seeds"/ 2>/dev/null || true ;;
    esac
    "build/fuzz/cpp/tools/$name" -max_total_time="${FUZZ_SECONDS:-60}" -max_len=65536 \
      -rss_limit_mb=4096 "$seeds" 2>&1 | tail -n 5
  done
fi
