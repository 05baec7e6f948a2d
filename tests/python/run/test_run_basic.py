"""`fastenough run` with children that need no torch: exit statuses, errors like a
shell, the run directory, meta.json, agent injection, and the report built from
run-dir files that a fixture child writes itself (hand-computed figures)."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

from conftest import run_cli


def only_run_dir(cwd: Path) -> Path:
    runs = sorted((cwd / ".fastenough" / "runs").iterdir())
    assert len(runs) == 1, runs
    return runs[0]


def test_no_command_is_usage_error(tmp_path):
    r = run_cli("run", cwd=tmp_path)
    assert r.returncode == 2
    assert "no command given" in r.stderr
    assert "Traceback" not in r.stderr
    r = run_cli("run", "--", cwd=tmp_path)
    assert r.returncode == 2
    assert not (tmp_path / ".fastenough").exists()


def test_command_not_found_and_not_executable(tmp_path):
    r = run_cli("run", "--", "no-such-program-fastenough", cwd=tmp_path)
    assert r.returncode == 127
    assert "command not found" in r.stderr
    assert "Traceback" not in r.stderr
    script = tmp_path / "script.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o644)
    r = run_cli("run", "--", str(script), cwd=tmp_path)
    assert r.returncode == 126
    assert "not executable" in r.stderr
    r = run_cli("run", "--", "./missing.sh", cwd=tmp_path)
    assert r.returncode == 127
    assert not (tmp_path / ".fastenough").exists()  # nothing created for a failed start


def test_exit_status_passed_on_and_history_row(tmp_path):
    r = run_cli("run", "--quiet", "--", "sh", "-c", "echo out; exit 7", cwd=tmp_path)
    assert r.returncode == 7, r.stderr
    assert "out" in r.stdout
    d = only_run_dir(tmp_path)
    meta = json.loads((d / "meta.json").read_text())
    assert meta["command"] == ["sh", "-c", "echo out; exit 7"]
    assert meta["exit_status"] == 7 and meta["signal"] is None
    assert meta["end_wall_ns"] >= meta["start_wall_ns"] > 0
    assert meta["cwd"] == str(tmp_path.resolve())
    names = {b["name"]: b["present"] for b in meta["sampler"]["backends"]}
    assert names["proc"] is True and "nvml" in names and "npu-smi" in names
    report = json.loads((d / "report.json").read_text())
    assert report["schema"] == "fastenough.report/1"
    assert report["run"]["exit_status"] == 7
    assert "phases.jsonl" in report["run"]["missing"]
    assert (d / "report.md").exists()
    assert (d / "supervisor.log").read_text().count("child exited with returncode 7") == 1
    h = run_cli("history", "--json", cwd=tmp_path)
    rows = json.loads(h.stdout)
    assert len(rows) == 1 and rows[0]["exit_status"] == 7 and rows[0]["run_dir"] == str(d)


def test_run_dir_option_and_non_empty_refused(tmp_path):
    target = tmp_path / "myrun"
    r = run_cli("run", "--quiet", "--run-dir", str(target), "--", "true", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (target / "report.json").exists()
    r = run_cli("run", "--run-dir", str(target), "--", "true", cwd=tmp_path)
    assert r.returncode == 2
    assert "not empty" in r.stderr


def test_agent_environment_injected(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(textwrap.dedent("""
        import json, os, sys
        json.dump({k: os.environ.get(k) for k in
                   ("FASTENOUGH_RUN_DIR", "FASTENOUGH_AGENT_OPTS", "PYTHONPATH")},
                  open(sys.argv[1], "w"))
    """))
    out = tmp_path / "env.json"
    r = run_cli("run", "--quiet", "--trace-steps", "7", "--no-trace", "--", sys.executable,
                str(probe), str(out), cwd=tmp_path, env={"PYTHONPATH": "/already/there"})
    assert r.returncode == 0, r.stderr
    env = json.loads(out.read_text())
    d = only_run_dir(tmp_path)
    assert env["FASTENOUGH_RUN_DIR"] == str(d)
    assert json.loads(env["FASTENOUGH_AGENT_OPTS"]) == {
        "trace": False, "trace_steps": 7, "warmup_steps": 3, "probe": False,
            "trace_gloo": True, "trace_shapes": True}
    parts = env["PYTHONPATH"].split(os.pathsep)
    assert parts[0].endswith(os.path.join("fastenough", "agent", "boot"))
    assert parts[1] == "/already/there"


def test_non_torch_python_program(tmp_path):
    script = tmp_path / "plain.py"
    script.write_text("s = sum(i * i for i in range(200000))\nprint('sum', s)\n")
    r = run_cli("run", "--json", "-", "--", sys.executable, str(script), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    # `--json -`: stdout is the report and nothing else; the child's own
    # stdout moved to stderr.
    report = json.loads(r.stdout)
    assert report["run"]["exit_status"] == 0
    assert report["steps"]["steady_steps_per_s"] is None
    # sum of i^2 for i < n = (n-1) n (2n-1) / 6
    expected = f"sum {199999 * 200000 * 399999 // 6}"
    assert expected in r.stderr and expected not in r.stdout


def test_json_file_keeps_the_commands_stdout(tmp_path):
    script = tmp_path / "plain.py"
    script.write_text("print('hello from the program')\n")
    r = run_cli("run", "--no-history", "--json", "out.json", "--", sys.executable, str(script),
                cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "hello from the program\n"
    report = json.loads((tmp_path / "out.json").read_text())
    assert report["run"]["exit_status"] == 0


def test_json_flag_needs_a_destination(tmp_path):
    r = run_cli("run", "--json", "--", sys.executable, "-c", "pass", cwd=tmp_path)
    assert r.returncode == 2
    assert "--json" in r.stderr


# A child that writes the agent's files itself, with known clocks, so that the
# phase table and the throughput can be checked by hand.
FAKE_AGENT = textwrap.dedent("""
    import json, os, sys
    d = os.environ["FASTENOUGH_RUN_DIR"]
    def line(name, obj):
        with open(os.path.join(d, name), "a") as f:
            f.write(json.dumps(obj) + "\\n")
    base = 1_000_000_000
    def edge(phase, e, t, auto=True, mem=None):
        o = {"rank": 0, "pid": os.getpid(), "phase": phase, "edge": e, "mono_ns": t,
             "wall_ns": base + t, "synced": True, "auto": auto}
        if mem: o["memory"] = mem
        line("phases.jsonl", o)
    edge("startup", "begin", 0)
    edge("load", "begin", 100, auto=False)
    edge("load", "end", 2_000_100, auto=False)
    edge("startup", "end", 3_000_000)
    edge("steady", "begin", 3_000_000)
    t = 3_000_000
    for i, dur in enumerate([1_000_000, 1_000_000, 2_000_000, 1_000_000]):
        line("steps.jsonl", {"rank": 0, "pid": os.getpid(), "index": i,
             "start_mono_ns": t, "end_mono_ns": t + dur, "start_wall_ns": base + t,
             "end_wall_ns": base + t + dur, "items": 16, "tokens": 512,
             "source": "explicit", "phase": "steady"})
        t += dur
    edge("steady", "end", t, mem={"device": "cpu", "allocated_bytes": None,
         "reserved_bytes": None, "alloc_peak_bytes": None, "reserved_peak_bytes": None,
         "rss_bytes": 123})
    with open(os.path.join(d, "agent", "%d.json" % os.getpid()), "w") as f:
        json.dump({"pid": os.getpid(), "rank": 0, "local_rank": 0, "world_size": 1,
                   "role": "main", "profile": None, "agent_error": None}, f)
    if len(sys.argv) > 1:
        edge("tail", "begin", t)          # then crash inside the tail phase
        raise SystemExit(int(sys.argv[1]))
""")


def test_report_from_fixture_agent_files(tmp_path):
    script = tmp_path / "fake_agent.py"
    script.write_text(FAKE_AGENT)
    # -S: no site, so the real agent does not load; this child is the agent.
    r = run_cli("run", "--json", "-", "--no-history", "--", sys.executable, "-S", str(script),
                cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    phases = {(p["name"]): p for p in report["phases"]}
    assert set(phases) == {"startup", "load", "steady"}
    assert phases["startup"]["host_ns"] == 3_000_000
    assert phases["load"]["host_ns"] == 2_000_000
    assert phases["steady"]["host_ns"] == 5_000_000
    assert phases["steady"]["util_mean"] is None  # no device: absent, not 0
    steps = report["steps"]
    # 4 steady steps over 5 ms: 800 steps/s; 64 items -> 12800/s; 2048 tokens -> 409600/s.
    assert steps["steady_count"] == 4
    assert abs(steps["steady_steps_per_s"] - 800) < 1e-6
    assert abs(steps["items_per_s"] - 12800) < 1e-4
    assert abs(steps["tokens_per_s"] - 409600) < 1e-3
    assert steps["steady_median_ns"] == 1_000_000
    details = report["run_details"]
    load = [p for p in details["phases"] if p["name"] == "load"][0]
    assert load["auto"] is False and load["complete"] is True
    assert report["meta"]["agents"][0]["role"] == "main"
    assert "agent/*.json" not in report["run"]["missing"]


def test_crash_still_writes_report(tmp_path):
    script = tmp_path / "fake_agent.py"
    script.write_text(FAKE_AGENT)
    r = run_cli("run", "--json", "-", "--no-history", "--", sys.executable, "-S", str(script), "3",
                cwd=tmp_path)
    assert r.returncode == 3
    report = json.loads(r.stdout)
    assert report["run"]["exit_status"] == 3
    tail = [p for p in report["run_details"]["phases"] if p["name"] == "tail"]
    assert tail and tail[0]["complete"] is False
    # steady figures survive the crash
    assert report["steps"]["steady_count"] == 4


def test_unwritable_run_dir_is_a_clean_error(tmp_path):
    r = run_cli("run", "--run-dir", "/proc/fastenough-cannot-exist/x", "--", "true",
                cwd=tmp_path)
    assert r.returncode == 2
    assert "cannot create the run directory" in r.stderr
    assert "Traceback" not in r.stderr
