"""A run report's meta.agents carries each process's agent record typed (issue 35
items 1-3): the core reads agent/<pid>.json through its declaration
(report/fields/meta_agent_fields.h) and writes it back as the file had it, keys in
the file's order; the readers (the reproducibility record, ab's protocol, the
recorded-outputs table) take the typed fields, not a dict."""

from __future__ import annotations

import json

import pytest

from fastenough import _core
from fastenough.ab.protocol import protocol_of
from fastenough.render.reproducibility_record import record_table
from fastenough.render.view.recorded_outputs import recorded_outputs_table
from fastenough.report import load
from fastenough.report.main_agent import main_agent

# As agent/process_record.py writes it (Python's json; the profile's keys in the
# order a window cut short on memory sets them, not the declaration's).
AGENT = {
    "pid": 4242, "rank": None, "local_rank": None, "world_size": None, "role": "main",
    "python": "3.11.7", "torch": "2.13.0+cpu", "cuda": None,
    "devices": [{"device": "cpu", "name": "x86_64"}],
    "compile": {"compile_time_ns": None, "compiles": None, "recompiles": None},
    "profile": {"trace": None, "first_step": 7, "last_step": None, "start_wall_ns": 5,
                "end_wall_ns": None, "with_stack": True, "record_shapes": True,
                "mode": "train", "skipped": "the profiler window recorded nothing",
                "stopped_early": "host memory grew", "peak_rss_rise_bytes": 1 << 20,
                "memory_bound_bytes": 64 << 20},
    "steps": 40, "step_source": "module", "step_sources": {"train": "module", "eval": None},
    "mode_switches": 1, "steps_deferred": 3, "batch_dim": 1,
    "dataloaders": [{"dataset": "TensorDataset", "num_workers": 0, "pin_memory": False,
                     "batch_size": 32, "in_memory": True}],
    "dataloader_site": {"eval": {"file": "/p/train.py", "line": 9, "function": "main"},
                        "train": {}},
    "step_split": {"train": {"steps": 16, "step_ns": 160, "forward_ns": 40, "backward_ns": 60,
                             "optimizer_ns": 20, "data_ns": 16, "steps_with_forward": 16,
                             "steps_with_backward": 16, "steps_with_optimizer": 16,
                             "steps_training_flag": 16, "steps_grad_enabled": 16,
                             "data_ns_p10": 1}},
    "model_call_site": {}, "model_swaps": 0, "tool_pause_ns": 10, "tool_pauses": 2,
    "profile_cost_ns": 30, "cpu": {"cores": 2, "torch_threads": 2, "omp_num_threads": "1"},
    "boot_mono_ns": 1, "boot_wall_ns": 2, "agent_error": None,
    "own_cost": {"hook_ns": 5, "hook_calls": 6, "steps": 40, "ns_per_step": 1,
                 "steady_intervals": 2, "base_ns_per_step": 1, "peak_ns_per_step": 2,
                 "last_interval": {"steps": 8, "own_ns_per_step": 1, "share": 1e-05,
                                   "records": 3},
                 "records": 3, "base_records": 3, "peak_records": 3, "switched_off": None},
    "torch_attach": "import", "torch_imported_unseen": False, "checks": True,
    "timing_only": False,
    "records": {"dir": "/p/out", "keys": 130, "bytes": 4096, "dtypes": {"float32": 130},
                "shards": 1, "error": None},
    "python_roots": {"user": ["/p"], "library": ["/usr/lib/python3.11"], "tool": []},
    "libraries": {"numpy": "2.4.6"}, "main_started": True,
}


def _report(tmp_path, agent: dict) -> tuple[str, object]:
    (tmp_path / "agent").mkdir(exist_ok=True)
    (tmp_path / "agent" / f"{agent.get('pid', 1)}.json").write_text(json.dumps(agent))
    text = _core.analyze_run_dir(str(tmp_path), rank_summaries=[], in_job=None, ended=None,
                                 cross_reference_lint=False, earlier_runs=[])
    return text, load(text)


def test_the_record_comes_back_as_the_file_had_it_in_its_order(tmp_path):
    text, _ = _report(tmp_path, AGENT)
    written = json.dumps(AGENT, separators=(",", ":"))
    assert f'"agents": [{written}]' in text  # byte for byte: order, 1e-05, nulls, {}


def test_the_readers_take_the_typed_record(tmp_path):
    _, report = _report(tmp_path, AGENT)
    agent = main_agent(report.meta)
    assert agent.step_split["train"].data_ns_p10 == 1
    assert agent.step_sources == {"train": "module", "eval": None}
    assert agent.dataloader_site["eval"].line == 9 and agent.dataloader_site["train"].file is None
    assert agent.own_cost.last_interval.share == 1e-05
    assert agent.profile.skipped.startswith("the profiler window recorded nothing")
    record = {row[0]: row[1] for row in record_table(report).rows}
    assert record["versions"].endswith("Python 3.11.7, torch 2.13.0+cpu")
    assert record["devices"] == "cpu x86_64"
    assert protocol_of(report, None, {})["torch"] == "2.13.0+cpu"
    outputs = recorded_outputs_table(report)
    assert outputs.rows == [["-", "130", "float32 x130", "4.0 KiB", "1", "ok"]]


def test_a_record_with_a_key_of_another_type_is_left_out_and_named(tmp_path):
    bad = {**AGENT, "cpu": {**AGENT["cpu"], "cores": "two"}}
    text, report = _report(tmp_path, bad)
    assert report.meta.agents == ()
    assert "agent/4242.json: $.cpu.cores: expected an integer" in text


@pytest.mark.parametrize("drop", ["profile", "step_split", "own_cost", "records"])
def test_an_older_agent_s_record_without_a_key_reads(tmp_path, drop):
    older = {k: v for k, v in AGENT.items() if k != drop}
    text, report = _report(tmp_path, older)
    assert getattr(report.meta.agents[0], drop) is None
    assert f'"agents": [{json.dumps(older, separators=(",", ":"))}]' in text
