"""A run report's meta carries meta.json's record typed (issue 35 items 2 and 3):
the core reads the file through its declaration (report/fields/meta_record_fields.h)
and writes it back as the file had it; the readers take the typed fields (the
reproducibility record, the run line, the timeline's wall clock), not a dict."""

from __future__ import annotations

import json

from fastenough import _core
from fastenough.render.reproducibility_record import record_table
from fastenough.report import load

# As python/fastenough/supervisor/session.py writes it (Python's json).
META = {
    "schema": "fastenough.meta/1", "fastenough_version": "0.9.0",
    "command": ["python", "train.py"], "cwd": "/home/a/proj",
    "git": {"revision": "0123456789abcdef", "dirty": True}, "host": "box",
    "supervisor_python": "3.11.9",
    "agent_opts": {"trace": False, "trace_steps": 5, "warmup_steps": 3, "probe": True,
                   "trace_gloo": True, "trace_shapes": True, "timing_only": True,
                   "in_job_timeout": 60.0},
    "start_wall_ns": 1_700_000_000_000_000_000, "end_wall_ns": 1_700_000_002_000_000_000,
    "exit_status": 0, "signal": None, "interrupted": False,
    "sampler": {"hz": 2.0, "backends": [{"name": "proc", "present": True, "detail": "procfs"}],
                "ticks": 4},
    "devices": [{"source": "nvml", "index": 0, "name": "NVIDIA H100", "uuid": None,
                 "bus_id": None, "mem_total_bytes": 80 << 30}],
    "visible_devices": {"variable": "CUDA_VISIBLE_DEVICES", "value": None, "physical": [0]},
    "other_processes": [],
    "agents": [],
}


def _report(tmp_path, meta: dict) -> tuple[str, object]:
    (tmp_path / "agent").mkdir()
    (tmp_path / "meta.json").write_text(json.dumps(meta, indent=1))
    text = _core.analyze_run_dir(str(tmp_path), rank_summaries=[], in_job=None, ended=None,
                                 cross_reference_lint=False, earlier_runs=[])
    return text, load(text)


def test_the_record_is_typed_and_written_back_as_the_file_had_it(tmp_path):
    text, report = _report(tmp_path, META)
    meta = report.meta
    assert meta.git.revision == "0123456789abcdef" and meta.git.dirty is True
    assert meta.agent_opts.trace is False and meta.agent_opts.in_job_timeout == 60.0
    assert meta.sampler.hz == 2.0 and meta.sampler.backends[0].name == "proc"
    assert meta.devices[0].uuid is None and meta.devices[0].mem_total_bytes == 80 << 30
    assert meta.visible_devices.physical == (0,) and meta.signal is None
    assert not hasattr(meta, "extra")  # every key of meta declared, the agents' too
    doc = json.loads(text)["meta"]
    assert {k: doc[k] for k in META} == META
    # Python's spelling of its floats, on one line as the report always wrote them.
    assert ' "sampler": {"hz":2.0,"backends":' in text
    assert '"in_job_timeout":60.0}' in text


def test_the_reproducibility_record_reads_the_typed_fields(tmp_path):
    _, report = _report(tmp_path, META)
    rows = dict(record_table(report).rows)
    assert rows["host"] == "box"
    assert rows["working directory"] == "/home/a/proj"
    assert rows["git"] == "0123456789ab (uncommitted changes)"
    assert rows["started"].startswith("2023-11-14")
    assert rows["devices"].startswith("NVIDIA H100 (")
    assert rows["options"] == "warmup 3 steps, profiler window off, probes on"
    assert rows["versions"].startswith("fastenough 0.9.0")


def test_a_run_that_never_ended_has_only_its_keys(tmp_path):
    meta = {k: v for k, v in META.items() if k not in ("other_processes", "agents")}
    meta.update(end_wall_ns=None, exit_status=None, agent_opts={})
    text, report = _report(tmp_path, meta)
    doc = json.loads(text)["meta"]
    assert "other_processes" not in doc and report.meta.other_processes is None
    assert doc["end_wall_ns"] is None and doc["agent_opts"] == {}
    assert "options" not in dict(record_table(report).rows)  # {} says nothing
