"""scripts/ctest_skips.py: why ctest skipped a test (issue 36, item 6). ctest
marks a GTEST_SKIP as "***Skipped" but shows no output for it; the script
reads the reasons back from ctest's JUnit file."""

from __future__ import annotations

import subprocess
import sys

from conftest import REPO

SCRIPT = REPO / "scripts" / "ctest_skips.py"

JUNIT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="(empty)" tests="3" failures="0" skipped="2">
  <testcase name="LoadTraceCorpus.AllFiles" classname="LoadTraceCorpus.AllFiles" status="notrun">
    <skipped message="SKIP_REGULAR_EXPRESSION_MATCHED"/>
    <system-out>Running main() from gtest_main.cc
[ RUN      ] LoadTraceCorpus.AllFiles
cpp/fastenough/trace/load_trace_corpus_test.cc:71: Skipped
corpus not present: /x/shared/corpus/hta
[  SKIPPED ] LoadTraceCorpus.AllFiles (0 ms)
</system-out>
  </testcase>
  <testcase name="Quiet.Skip" classname="Quiet.Skip" status="notrun">
    <skipped message="SKIP_REGULAR_EXPRESSION_MATCHED"/>
    <system-out>[  SKIPPED ] Quiet.Skip (0 ms)</system-out>
  </testcase>
  <testcase name="Json.Ok" classname="Json.Ok" status="run"><system-out>ok</system-out></testcase>
</testsuite>
"""


def test_each_skipped_test_is_printed_with_its_reason(tmp_path):
    junit = tmp_path / "ctest-junit.xml"
    junit.write_text(JUNIT)
    r = subprocess.run([sys.executable, str(SCRIPT), str(junit)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "ctest: skipped LoadTraceCorpus.AllFiles: corpus not present: /x/shared/corpus/hta "
        "(cpp/fastenough/trace/load_trace_corpus_test.cc:71)",
        "ctest: skipped Quiet.Skip: (ctest gave no reason)",
        "ctest: 2 skipped",
    ]


def test_an_unreadable_file_is_a_usage_error(tmp_path):
    r = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "none.xml")],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "cannot read" in r.stderr and not r.stdout
