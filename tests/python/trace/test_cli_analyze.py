"""`fastenough analyze` as a user runs it: outputs, formats, errors, exit codes."""

from __future__ import annotations

import gzip
import json

from conftest import REPO

EXAMPLE = REPO / "examples" / "traces" / "train_a100_rank3.json.gz"


def assert_clean_error(proc, *needles: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("fastenough") or "usage:" in proc.stderr
    for n in needles:
        assert n in proc.stderr, proc.stderr


def test_terminal_report_of_the_example(cli):
    proc = cli("analyze", EXAMPLE)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for heading in ("Inputs", "Device time", "Why the device was idle", "Top kernels",
                    "Top CPU ops", "Findings"):
        assert heading in out, heading
    assert "A100" in out
    assert "6 steps" in out


def test_json_report_is_the_documented_schema(cli):
    proc = cli("analyze", "--json", EXAMPLE)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["schema"] == "fastenough.report/1"
    assert report["inputs"][0]["format"] == "kineto"
    assert report["inputs"][0]["ranks"] == [3]
    (device,) = report["devices"]
    assert device["rank"] == 3
    parts = device["compute_ns"] + device["comm_ns"] + device["memcpy_ns"] + device["memset_ns"]
    assert parts == device["busy_ns"]
    assert device["busy_ns"] + device["idle_ns"] == device["span_ns"]
    assert report["steps"]["count"] == 6
    assert isinstance(report["findings"], list)


def test_markdown_report(cli):
    proc = cli("analyze", "--md", EXAMPLE)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("# fastenough report")
    assert "| rank | device |" in proc.stdout


def test_several_files_at_once(cli, corpus_dir):
    a = corpus_dir / "trace_filter" / "sampled_rank-0.json.gz"
    b = corpus_dir / "trace_filter" / "sampled_rank-1.json.gz"
    proc = cli("analyze", "--json", a, b)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert [i["path"] for i in report["inputs"]] == [str(a), str(b)]
    assert {d["rank"] for d in report["devices"]} == {0, 1}


def test_missing_file(cli, tmp_path):
    missing = tmp_path / "nope.json.gz"
    assert_clean_error(cli("analyze", missing), str(missing))


def test_empty_directory(cli, tmp_path):
    assert_clean_error(cli("analyze", tmp_path), "no trace files")


def test_directory_with_other_paths_is_refused(cli, tmp_path):
    assert_clean_error(cli("analyze", tmp_path, EXAMPLE), "must be the only PATH")


def _handler_dir(tmp_path, stamps_per_worker):
    """A directory laid out as tensorboard_trace_handler writes it."""
    d = tmp_path / "log"
    d.mkdir()
    trace = json.loads(gzip.decompress(EXAMPLE.read_bytes()))
    for rank, (worker, stamps) in enumerate(stamps_per_worker.items()):
        # Each worker is a rank of its own: a job's report takes one input per rank.
        trace.setdefault("distributedInfo", {})["rank"] = rank
        data = gzip.compress(json.dumps(trace).encode())
        for stamp in stamps:
            (d / f"{worker}.{stamp}.pt.trace.json.gz").write_bytes(data)
    (d / "events.out.tfevents.1").write_bytes(b"not a trace")
    return d


def test_handler_directory_newest_window_by_default(cli, tmp_path):
    d = _handler_dir(tmp_path, {"host_11": [100, 300], "host_12": [110, 310]})
    proc = cli("analyze", "--json", d)
    assert proc.returncode == 0, proc.stderr
    paths = [i["path"] for i in json.loads(proc.stdout)["inputs"]]
    assert paths == [str(d / "host_11.300.pt.trace.json.gz"),
                     str(d / "host_12.310.pt.trace.json.gz")]
    assert "2 profiler windows per worker" in proc.stderr
    assert "window 2 of 2" in proc.stderr


def test_handler_directory_window_option(cli, tmp_path):
    d = _handler_dir(tmp_path, {"host_11": [100, 300], "host_12": [110, 310]})
    proc = cli("analyze", "--json", "--window", "1", d)
    assert proc.returncode == 0, proc.stderr
    paths = [i["path"] for i in json.loads(proc.stdout)["inputs"]]
    assert paths == [str(d / "host_11.100.pt.trace.json.gz"),
                     str(d / "host_12.110.pt.trace.json.gz")]
    assert_clean_error(cli("analyze", "--window", "3", d), "windows 1..2")
    assert_clean_error(cli("analyze", "--window", "1", EXAMPLE), "applies to a directory")


def test_directory_written_by_the_real_handler(cli, tmp_path):
    torch = __import__("pytest").importorskip("torch")
    from torch.profiler import ProfilerActivity, profile, schedule, tensorboard_trace_handler

    d = tmp_path / "tb"
    model = torch.nn.Linear(16, 16)
    with profile(activities=[ProfilerActivity.CPU],
                 schedule=schedule(wait=0, warmup=1, active=2, repeat=2),
                 on_trace_ready=tensorboard_trace_handler(str(d), worker_name="w0",
                                                          use_gzip=True)) as prof:
        for _ in range(6):
            model(torch.randn(4, 16)).sum().backward()
            prof.step()
    files = sorted(p.name for p in d.iterdir())
    assert len(files) == 2 and all(f.startswith("w0.") for f in files), files
    proc = cli("analyze", "--json", d)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert [i["path"] for i in report["inputs"]] == [str(d / files[1])]
    assert report["steps"]["count"] == 2


def test_empty_file(cli, tmp_path):
    empty = tmp_path / "empty.json"
    empty.write_text("")
    assert_clean_error(cli("analyze", empty), str(empty))


def test_garbage_file(cli, tmp_path):
    junk = tmp_path / "junk.json"
    junk.write_bytes(b"\x00\x01hello world, not a trace" * 10)
    assert_clean_error(cli("analyze", junk), str(junk))


def test_gzip_of_garbage(cli, tmp_path):
    junk = tmp_path / "junk.json.gz"
    junk.write_bytes(gzip.compress(b"[1, 2, 3"))
    proc = cli("analyze", junk)
    assert proc.returncode in (1, 2)
    assert "Traceback" not in proc.stderr


def test_unknown_flag(cli):
    assert_clean_error(cli("analyze", "--frobnicate", EXAMPLE), "unrecognized arguments")


def test_no_paths(cli):
    assert_clean_error(cli("analyze"), "required")


def test_progress_does_not_pollute_json(cli):
    proc = cli("analyze", "--json", EXAMPLE, env={"FASTENOUGH_FORCE_PROGRESS": "1"})
    assert proc.returncode == 0, proc.stderr
    json.loads(proc.stdout)


def test_help_teaches(cli):
    proc = cli("analyze", "--help")
    assert proc.returncode == 0
    assert "examples:" in proc.stdout
    assert "exit status" in proc.stdout


def test_cpu_only_trace_says_why_device_tables_are_missing(cli, corpus_dir):
    proc = cli("analyze", corpus_dir / "rank_non_gpu" / "rank_non_gpu.json.gz")
    assert proc.returncode == 0, proc.stderr
    assert "no device activity in the trace" in proc.stdout
    assert "Device time" not in proc.stdout


def test_a_trace_cut_to_a_few_percent_exits_5(cli, tmp_path):
    text = gzip.decompress(EXAMPLE.read_bytes())
    cut = tmp_path / "cut.json"
    cut.write_bytes(text[: len(text) * 6 // 100])  # 6% of the events, as the probe kept
    proc = cli("analyze", cut)
    assert proc.returncode == 5, proc.stderr
    assert "Trace problems" in proc.stdout and "file_truncated" in proc.stdout
    whole = cli("analyze", EXAMPLE)
    assert whole.returncode == 0, whole.stderr


def test_truncated_trace_keeps_events_and_says_so(cli, corpus_dir, tmp_path):
    text = gzip.decompress((corpus_dir / "trace_filter" / "sampled_rank-0.json.gz").read_bytes())
    cut = tmp_path / "cut.json"
    cut.write_bytes(text[: len(text) // 3])
    proc = cli("analyze", "--json", cut)
    assert proc.returncode == 5, proc.stderr  # analysed with data loss (it was 0)
    assert "data was lost reading the input (file_truncated)" in proc.stderr
    report = json.loads(proc.stdout)
    (counter,) = [c for c in report["counters"] if c["name"] == "file_truncated"]
    assert counter["severity"] == "data-loss" and counter["count"] == 1
    assert 0 < report["inputs"][0]["events"] < 4855
