"""Inputs that are not plain files with UTF-8 names: a FIFO is refused at once
(it hung in open() before), and a path whose bytes are not UTF-8 reaches the
core as bytes (it raised TypeError at the binding, exit 3) and is shown with
its odd bytes as escapes. The real CLI on real FIFOs and directories."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import DATA

TRACE = DATA / "traces" / "kineto_minimal.json"
ODD = os.fsdecode(b"exp\xff\xfe")  # a directory name that is not UTF-8
ODD_SHOWN = "exp\\xff\\xfe"


def _no_traceback(r) -> None:
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr


@pytest.mark.parametrize("command", [["analyze"], ["report", "--md"], ["diff", "{ok}"],
                                     ["compare", "{ok_npy}"]])
def test_a_fifo_as_input_is_refused_at_once(tmp_path, cli, command):
    fifo = tmp_path / "in.json"
    os.mkfifo(fifo)
    ok_npy = tmp_path / "ok.npy"
    np.save(ok_npy, np.zeros(2, dtype=np.float32))
    args = [a.format(ok=TRACE, ok_npy=ok_npy) for a in command[1:]]
    # Nobody ever writes to the FIFO: a reader that opens it waits forever.
    r = cli(command[0], fifo, *args, timeout=60)
    _no_traceback(r)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "not a regular file" in r.stderr


def _odd_dir(tmp_path: Path) -> Path:
    d = tmp_path / ODD
    d.mkdir()
    return d


def test_analyze_and_report_take_a_path_that_is_not_utf8(tmp_path, cli):
    trace = _odd_dir(tmp_path) / "t.json"
    trace.write_bytes(TRACE.read_bytes())
    for args in (["analyze", trace], ["analyze", trace, "--md"], ["report", trace, "--html"],
                 ["analyze", trace.parent]):
        r = cli(*args, cwd=tmp_path)
        _no_traceback(r)
        assert r.returncode == 0, (args, r.stderr)
    r = cli("analyze", trace, cwd=tmp_path)
    # The report (JSON, UTF-8) names it with U+FFFD for each odd byte, as the
    # core's JSON writer replaces every byte that is not UTF-8.
    assert "exp\ufffd\ufffd/t.json" in r.stdout


def test_compare_takes_paths_that_are_not_utf8(tmp_path, cli):
    d = _odd_dir(tmp_path)
    np.save(d / "a.npy", np.arange(4, dtype=np.float32))
    np.save(d / "b.npy", np.arange(4, dtype=np.float32))
    r = cli("compare", d / "a.npy", d / "b.npy")
    _no_traceback(r)
    assert r.returncode == 0, r.stderr
    assert "bitwise equal" in r.stdout


def test_annotate_writes_to_a_path_that_is_not_utf8(tmp_path, cli):
    d = _odd_dir(tmp_path)
    trace = d / "t.json"
    trace.write_bytes(TRACE.read_bytes())
    r = cli("analyze", trace, "--annotate", d / "out.json")
    _no_traceback(r)
    assert r.returncode == 0, r.stderr
    assert (d / "out.json").read_bytes().startswith(b"{")


def test_run_in_a_directory_that_is_not_utf8(tmp_path, cli):
    d = _odd_dir(tmp_path)
    r = cli("run", "--no-trace", "--", sys.executable, "-c", "print(1)", cwd=d)
    _no_traceback(r)
    assert r.returncode == 0, r.stderr
    (run_dir,) = (d / ".fastenough" / "runs").iterdir()
    names = sorted(p.name for p in run_dir.iterdir())
    assert {"meta.json", "report.json", "report.md", "report.html"} <= set(names), names
    assert not [n for n in names if n.endswith(".tmp")]
    report = json.loads((run_dir / "report.json").read_text())
    assert report["run"]["exit_status"] == 0  # meta.json was readable to the core
    h = cli("history", cwd=d)
    _no_traceback(h)
    assert h.returncode == 0 and "print(1)" in h.stdout
    assert ODD_SHOWN in r.stderr  # "run directory ...": the odd bytes as escapes
