"""What a newcomer reads first (issue 36, item 4): a complete run says so on its
first line, a CPU run shows no device rows of zeros, wrapped lines of a finding
keep their indent, a truncated gzip trace is called truncated, and `report`
exits as `analyze` does for the same damaged trace."""

from __future__ import annotations

import gzip
import json
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import run_cli

DATA = Path(__file__).resolve().parents[2] / "data" / "traces"


@pytest.fixture
def gz_trace(tmp_path) -> Path:
    """kineto_minimal.json with its events repeated to a few hundred KiB, gzip."""
    doc = json.loads((DATA / "kineto_minimal.json").read_text())
    events = doc["traceEvents"]
    doc["traceEvents"] = [dict(e, ts=e.get("ts", 0) + 10_000 * i) if "ts" in e else e
                          for i in range(400) for e in events]
    path = tmp_path / "rank0.pt.trace.json.gz"
    path.write_bytes(gzip.compress(json.dumps(doc).encode(), compresslevel=1))
    return path


def test_a_100_byte_truncated_gzip_is_truncated_not_empty(tmp_path, gz_trace):
    cut = tmp_path / "cut.json.gz"
    cut.write_bytes(gz_trace.read_bytes()[:100])
    a = run_cli("analyze", cut)
    assert a.returncode == 2, a.stderr
    assert "truncated: the gzip stream ends after 100 bytes of the file" in a.stderr
    assert "empty" not in a.stderr
    r = run_cli("report", cut)
    assert r.returncode == a.returncode
    assert "truncated" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("keep", [0.5, 0.9])
def test_report_and_analyze_exit_alike_for_a_damaged_trace(tmp_path, gz_trace, keep):
    data = gz_trace.read_bytes()
    cut = tmp_path / "cut.pt.trace.json.gz"
    cut.write_bytes(data[:int(len(data) * keep)])
    a = run_cli("analyze", cut, "--json")
    assert a.returncode in (2, 5), a.stderr  # unreadable, or data lost
    for args in ([], ["--md"], ["--json"], ["-o", tmp_path / "r.html"]):
        r = run_cli("report", cut, *args)
        assert r.returncode == a.returncode, (args, r.stderr, a.stderr)
        assert "Traceback" not in r.stderr


def test_a_run_directory_with_a_truncated_trace_reanalysed_says_data_was_lost(tmp_path,
                                                                             gz_trace):
    # What `report RUN --reanalyze` reads of a damaged trace, `analyze` reads of
    # the trace itself: the report is written (the run's other files stand),
    # and the exit status says data was lost, as analyze's does.
    pytest.importorskip("torch")
    r = run_cli("run", "--quiet", "--no-history", "--run-dir", tmp_path / "run", "--",
                sys.executable, "-c", "import torch\nfor _ in range(30): torch.ones(8) @ "
                "torch.ones(8)\n", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    trace = tmp_path / "run" / "trace" / "rank0.pt.trace.json.gz"
    data = gz_trace.read_bytes()
    trace.write_bytes(data[:len(data) // 2])
    a = run_cli("analyze", trace)
    rr = run_cli("report", tmp_path / "run", "--reanalyze", "--json")
    assert rr.returncode == 5 and a.returncode in (2, 5), (rr.stderr, a.stderr)
    assert "data was lost reading the input" in rr.stderr
    # Rendering the run's saved report.json again reads no trace: 0.
    assert run_cli("report", tmp_path / "run", "--md").returncode == 0


PROGRAM = textwrap.dedent("""
    import time, torch
    class Slow(torch.nn.Module):
        def forward(self, x):
            time.sleep(0.01)
            return x * 2
    model = Slow()
    total = 0.0
    for _ in range(60):
        total += model(torch.ones(4, 3)).sum().item()
""")


def test_a_complete_cpu_run_reads_measurement_first_no_device_zeros_indented_lines(tmp_path):
    pytest.importorskip("torch")
    script = tmp_path / "prog.py"
    script.write_text(PROGRAM)
    r = run_cli("run", "--no-history", "--trace-steps", "10", "--", sys.executable, script,
                cwd=tmp_path, env={"COLUMNS": "80", "OMP_NUM_THREADS": "1"})
    assert r.returncode == 0, r.stderr
    run_dir = next((tmp_path / ".fastenough" / "runs").iterdir())
    report = json.loads((run_dir / "report.json").read_text())
    assert report["measurement"]["status"] == "complete", report["measurement"]
    lines = r.stderr.splitlines()
    # README: what the measurement saw comes first, complete or not.
    assert lines[0].startswith("Measurement complete: "), r.stderr[:400]
    # A CPU run: no Kernel / Memcpy / Communication rows of zeros.
    table = r.stderr[r.stderr.index("Where the step went"):]
    table = table[:table.index("in this order.")]
    for device_row in ("Kernel", "Memcpy", "Memset", "Communication", "Runtime"):
        assert f"│ {device_row} " not in table, table
    assert "CPU Exec" in table
    assert "No device in this run" in r.stderr
    # A finding's wrapped lines start under its text, never at column 0.
    start = next(i for i, line in enumerate(lines) if line.startswith("Findings"))
    end = next(i for i, line in enumerate(lines) if line.startswith("`fastenough explain"))
    first = next(i for i in range(start, end) if lines[i][:1].isdigit())
    body = lines[first:end]
    assert any(line.startswith("   evidence: ") for line in body), body
    for i, line in enumerate(body):
        if line.startswith("   evidence: ") and i + 1 < len(body) and \
                not body[i + 1].lstrip().startswith(("fix:", "where:")):
            assert body[i + 1].startswith(" " * 13), body[i:i + 3]
    numbered = [line for line in body if line[:1].isdigit()]
    assert numbered, body
    assert all(line[:1] == " " or line[:1].isdigit() for line in body), body
    # The report fits 80 columns (the run's own closing lines quote paths).
    report_lines = [line for line in lines if not line.startswith("fastenough: ")]
    assert max(len(line) for line in report_lines) <= 80, report_lines
