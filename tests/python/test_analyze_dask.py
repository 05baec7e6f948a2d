"""`fastenough analyze --dask ADDRESS` (issue 26, item 4; docs/across-hosts.md):
the ranks' traces are summarised on the workers of a real Dask cluster, here a
local one of two worker processes started by the test, and merged by the
command; the report is the one `analyze` gives for the same traces on one
host. Bad addresses, scheduler files that are none and traces the workers
cannot read give a clear message and exit 2, never a traceback."""

from __future__ import annotations

import json
import re

import pytest
from conftest import run_cli
from test_rank_summaries import _gen_ranks, _straggler, _without_version

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster():
    # Two worker processes, one thread each: each rank is a task of its own.
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as c:
        yield c


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    d = tmp_path_factory.mktemp("dask-ranks")
    names = _gen_ranks(d, 4) + _straggler(d)
    return d, [str(d / n) for n in names]


def test_the_report_is_the_one_analyze_gives_on_one_host(cluster, traces, tmp_path):
    d, paths = traces
    local = run_cli("analyze", "--json", "--no-progress", *paths, cwd=d)
    assert local.returncode == 0, local.stderr
    sums = tmp_path / "sums"
    on_dask = run_cli("analyze", "--json", "--dask", cluster.scheduler_address,
                      "--rank-summaries", sums, *paths, cwd=tmp_path)
    assert on_dask.returncode == 0, on_dask.stderr
    assert _without_version(on_dask.stdout) == _without_version(local.stdout)
    report = json.loads(on_dask.stdout)
    m = re.search(r"(\d+) trace\(s\) summarised on (\d+) Dask worker\(s\)", on_dask.stderr)
    assert m is not None, on_dask.stderr
    assert int(m[1]) == len(paths) and 1 <= int(m[2]) <= 2, on_dask.stderr
    # The summaries are those of one host: `merge` makes the same report.
    merged = run_cli("merge", "--json", sums, cwd=d)
    assert merged.returncode == 0, merged.stderr
    assert _without_version(merged.stdout) == _without_version(local.stdout)
    # Relative paths are the command's, made absolute for the workers.
    rel = run_cli("analyze", "--json", "--dask", cluster.scheduler_address,
                  *[p.rsplit("/", 1)[1] for p in paths], cwd=d)
    assert rel.returncode == 0, rel.stderr
    assert json.loads(rel.stdout)["findings"] == report["findings"]
    # A cross-rank finding from summaries made on different workers.
    pair = run_cli("analyze", "--json", "--dask", cluster.scheduler_address, *paths[4:])
    assert pair.returncode == 0, pair.stderr
    assert "straggler-rank" in {f["code"] for f in json.loads(pair.stdout)["findings"]}


def test_the_scheduler_file_names_the_scheduler(cluster, traces, tmp_path):
    _, paths = traces
    scheduler_file = tmp_path / "scheduler.json"
    scheduler_file.write_text(json.dumps({"type": "Scheduler",
                                          "address": cluster.scheduler_address}))
    r = run_cli("analyze", "--json", "--dask", scheduler_file, *paths[:2])
    assert r.returncode == 0, r.stderr
    assert len(json.loads(r.stdout)["inputs"]) == 2


def test_a_trace_the_workers_cannot_read_is_named(cluster, traces, tmp_path):
    _, paths = traces
    missing = tmp_path / "rank9.json"
    r = run_cli("analyze", "--dask", cluster.scheduler_address, paths[0], missing)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr
    assert str(missing) in r.stderr and "on worker tcp://" in r.stderr
    assert "no such file" in r.stderr


@pytest.mark.parametrize("address, message", [
    ("not-an-address", "give the scheduler's address"),
    ("{trace}", "not a Dask scheduler file"),  # a file, but no scheduler's
])
def test_what_is_no_scheduler_is_refused_at_once(traces, address, message):
    _, paths = traces
    r = run_cli("analyze", "--dask", address.format(trace=paths[0]), paths[0], timeout=60)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr and "Traceback" not in r.stderr


def test_annotate_is_one_trace_on_this_host(traces, tmp_path):
    _, paths = traces
    r = run_cli("analyze", "--dask", "tcp://127.0.0.1:1", "--annotate", tmp_path / "a.json",
                paths[0])
    assert r.returncode == 2 and "--annotate and --dask" in r.stderr, r.stderr
