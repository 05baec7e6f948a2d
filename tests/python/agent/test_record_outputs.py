"""fastenough.record under `fastenough run` with real torch programs: shards and
index under outputs/, host copies (later in-place edits do not change the
record), nested values, the duplicate-key error naming both call sites, the
report's "Recorded outputs" section, `fastenough compare` of two runs, and a
writer failure that switches recording off without touching the program's
output or exit status."""

from __future__ import annotations

import json
import struct
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("torch")

from conftest import run_cli  # noqa: E402


def run_program(tmp_path: Path, name: str, code: str, *args: str):
    script = tmp_path / f"{name}.py"
    script.write_text(textwrap.dedent(code))
    run_dir = tmp_path / f"run_{name}"
    r = run_cli("run", "--quiet", "--run-dir", str(run_dir), *args, "--", sys.executable,
                str(script), cwd=tmp_path)
    return r, run_dir


def shard_header(path: Path) -> dict:
    raw = path.read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    return json.loads(raw[8 : 8 + n])


PROGRAM = """
import sys, torch, fastenough
bump = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0
torch.manual_seed(0)
model = torch.nn.Linear(8, 4)
x = torch.randn(30, 8)
with torch.no_grad():
    for i in range(30):
        y = model(x[i : i + 1])
        if i == 17:
            y = y + bump
        fastenough.record(i, y)
        fastenough.step(items=1)
        y.add_(100.0)  # in place after recording: the record keeps the value before
fastenough.record("summary", {"mean": float(y.mean()), "ids": [1, 2, 3],
                              "parts": [torch.zeros(2), torch.ones(3, dtype=torch.int32)]})
print("done", flush=True)
"""


def test_record_shards_index_report_and_compare(tmp_path):
    r, run_a = run_program(tmp_path, "a", PROGRAM)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "done"
    out = run_a / "outputs"
    index = json.loads((out / "records.index.json").read_text())
    assert index["schema"] == "fastenough.records/1"
    assert index["shards"] == ["records-00000.safetensors"]
    keys = index["keys"]
    assert list(keys)[:3] == ["0", "1", "2"]
    assert keys["5"] == {"shard": "records-00000.safetensors", "dtype": "F32", "shape": [1, 4],
                         "bytes": 16}
    assert keys["summary/mean"]["dtype"] == "F64" and keys["summary/mean"]["shape"] == []
    assert keys["summary/ids"] == {"shard": "records-00000.safetensors", "dtype": "I64",
                                   "shape": [3], "bytes": 24}
    assert keys["summary/parts/1"]["dtype"] == "I32"
    assert len(keys) == 30 + 4
    header = shard_header(out / "records-00000.safetensors")
    assert set(header) == set(keys)
    # The values recorded are those before the in-place add_(100): all well below 100.
    import torch

    raw = (out / "records-00000.safetensors").read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    lo, hi = header["0"]["data_offsets"]
    first = torch.frombuffer(bytearray(raw[8 + n + lo : 8 + n + hi]), dtype=torch.float32)
    assert first.abs().max() < 10
    # The report lists what was recorded.
    report = json.loads((run_a / "report.json").read_text())
    [rec] = [a["records"] for a in report["meta"]["agents"] if a.get("records")]
    assert rec["keys"] == 34 and rec["shards"] == 1 and rec["error"] is None
    assert rec["dtypes"] == {"F32": 31, "F64": 1, "I32": 1, "I64": 1}
    assert rec["bytes"] == 30 * 16 + 8 + 24 + 8 + 12
    md = (run_a / "report.md").read_text()
    assert "Recorded outputs (fastenough.record)" in md
    # Same program again: bitwise equal; with item 17 bumped: differs, item 17 named.
    r, run_b = run_program(tmp_path, "b", PROGRAM)
    assert r.returncode == 0, r.stderr
    c = run_cli("compare", run_a, run_b, cwd=tmp_path)
    assert c.returncode == 0, c.stdout + c.stderr
    assert "Verdict: bitwise equal" in c.stdout
    script = tmp_path / "c.py"
    script.write_text(textwrap.dedent(PROGRAM))
    run_c = tmp_path / "run_c"
    r = run_cli("run", "--quiet", "--run-dir", str(run_c), "--", sys.executable, str(script), "0.5",
                cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    c = run_cli("compare", run_a, run_c, "--json", cwd=tmp_path)
    assert c.returncode == 1, c.stderr
    doc = json.loads(c.stdout)
    assert [k["key"] for k in doc["worst"]] == ["17"]
    assert doc["worst"][0]["max_abs"] == pytest.approx(0.5, abs=1e-6)
    assert doc["counts"]["bitwise_equal"] == 33


def test_duplicate_key_names_both_call_sites(tmp_path):
    r, run_dir = run_program(tmp_path, "dup", """
        import torch, fastenough
        fastenough.record("scores", torch.ones(2))
        try:
            fastenough.record("scores", torch.zeros(2))
        except ValueError as e:
            print("caught:", e)
        fastenough.record({"not": "a key"} and "k", {"a": torch.ones(1)})
        fastenough.record("k", {"a": torch.ones(1)})
        """)
    assert r.returncode == 1  # the second record of k/a is not caught: the program fails
    script = str(tmp_path / "dup.py")
    assert (f"caught: fastenough.record: key 'scores' recorded twice: first at {script}:3, "
            f"again at {script}:5") in r.stdout
    assert "DuplicateRecordError" in r.stderr
    assert f"key 'k/a' recorded twice: first at {script}:8, again at {script}:9" in r.stderr
    # What was recorded before the error is still written at exit.
    index = json.loads((run_dir / "outputs" / "records.index.json").read_text())
    assert list(index["keys"]) == ["scores", "k/a"]


def test_shards_roll_over_and_device_tensors(tmp_path):
    # 40 tensors of 256 KiB with 1 MiB shards (the agent option record_shard_bytes):
    # 10 shards of 4, and one index naming them all.
    r, run_dir = run_program(tmp_path, "roll", """
        import torch, fastenough
        from fastenough.agent import runtime
        runtime.get_agent().output_recorder().shard_bytes = 1 << 20
        dev = "cuda" if torch.cuda.is_available() else "cpu"
        for i in range(40):
            fastenough.record(f"t{i:02d}", torch.full((64, 1024), float(i), device=dev))
        """)
    assert r.returncode == 0, r.stderr
    index = json.loads((run_dir / "outputs" / "records.index.json").read_text())
    assert len(index["shards"]) == 10
    assert index["keys"]["t39"]["shard"] == "records-00009.safetensors"
    assert sorted(p.name for p in (run_dir / "outputs").iterdir()) == sorted(
        index["shards"] + ["records.index.json"])
    c = run_cli("compare", run_dir, run_dir / "outputs" / "records-00000.safetensors",
                "--json", cwd=tmp_path)
    doc = json.loads(c.stdout)
    assert c.returncode == 1 and doc["counts"]["paired"] == 4 and len(doc["missing"]) == 36


def test_writer_failure_switches_recording_off_not_the_program(tmp_path):
    # outputs/ is a file: the writer cannot create its folder.
    r, run_dir = run_program(tmp_path, "fail", """
        import os, sys, torch, fastenough
        from fastenough.agent import runtime
        open(os.path.join(runtime.get_agent().dir.path, "outputs"), "w").close()
        for i in range(3):
            fastenough.record(i, torch.ones(2))
        print("still running")
        sys.exit(3)
        """)
    assert r.returncode == 3
    assert r.stdout == "still running\n"
    report = json.loads((run_dir / "report.json").read_text())
    [rec] = [a["records"] for a in report["meta"]["agents"] if a.get("records")]
    assert rec["error"] and "rror" in rec["error"]
    md = (run_dir / "report.md").read_text()
    assert "recording stopped after a writer error" in md
    assert "recording outputs stopped" in (run_dir / "agent.log").read_text()


def test_compare_checks_the_index_against_the_shards(tmp_path):
    r, run_dir = run_program(tmp_path, "idx", """
        import torch, fastenough
        from fastenough.agent import runtime
        runtime.get_agent().output_recorder().shard_bytes = 64
        for i in range(3):
            fastenough.record(i, torch.arange(16.0) + i)
        """)
    assert r.returncode == 0, r.stderr
    out = run_dir / "outputs"
    index = json.loads((out / "records.index.json").read_text())
    assert index["shards"] == [f"records-0000{i}.safetensors" for i in range(3)]
    c = run_cli("compare", run_dir, run_dir, cwd=tmp_path)
    assert c.returncode == 0 and "3 keys paired: 3 bitwise equal" in c.stdout
    (out / "records-00001.safetensors").unlink()
    c = run_cli("compare", run_dir, run_dir, cwd=tmp_path)
    assert c.returncode == 2
    assert c.stderr.strip() == (f"fastenough: {out / 'records.index.json'}: names shard "
                                "records-00001.safetensors, which is missing (was the run cut "
                                "short, or the folder copied in part?)")


def test_sigterm_still_writes_the_records(tmp_path):
    import signal
    import subprocess
    import time

    script = tmp_path / "term.py"
    script.write_text(textwrap.dedent("""
        import time, torch, fastenough
        for i in range(5):
            fastenough.record(i, torch.full((4,), float(i)))
        print("recorded", flush=True)
        time.sleep(60)
        """))
    run_dir = tmp_path / "run_term"
    p = subprocess.Popen([sys.executable, "-m", "fastenough", "run", "--quiet", "--run-dir",
                          str(run_dir), "--", sys.executable, str(script)], cwd=tmp_path,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "recorded"
    time.sleep(0.5)
    p.send_signal(signal.SIGTERM)
    p.communicate(timeout=120)
    index = json.loads((run_dir / "outputs" / "records.index.json").read_text())
    assert list(index["keys"]) == ["0", "1", "2", "3", "4"]
