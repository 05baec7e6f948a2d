"""report.html of real `fastenough run`s that are not the happy path: a CPU run
(no device), a crashed run (the workload exits non-zero), a run with no steps;
and `fastenough report` on run directories and traces, its formats and errors."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest
from conftest import REPO, run_cli
from html_structure import external_references, parse

pytest.importorskip("torch")

EXAMPLE = REPO / "examples" / "traces" / "train_a100_rank3.json.gz"

LOOP = """
import torch
model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.GELU(), torch.nn.Linear(256, 8))
with torch.no_grad():
    for _ in range(60):
        model(torch.randn(16, 64))
"""


def _run(tmp_path, name: str, body: str, *opts: str):
    d = tmp_path / name
    d.mkdir()
    script = d / "prog.py"
    script.write_text(textwrap.dedent(body))
    r = run_cli("run", "--no-history", "--quiet", *opts, "--", sys.executable, str(script),
                cwd=d, env={"OMP_NUM_THREADS": "1"})
    (run_dir,) = (d / ".fastenough" / "runs").iterdir()
    return r, run_dir


def _page(run_dir):
    text = (run_dir / "report.html").read_text()
    page = parse(text)
    assert page.errors == []
    assert external_references(text, page) == []
    return text, page


def _card(page, key: str) -> str:
    (c,) = page.find("div", **{"data-key": key})
    return " ".join(" ".join(part.text.split()) for part in c.children)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("report-runs")
    return {
        "cpu": _run(tmp, "cpu", LOOP),
        "crash": _run(tmp, "crash", LOOP + "raise SystemExit(3)\n", "--no-trace"),
        "nosteps": _run(tmp, "nosteps", "import torch\nprint(torch.ones(3).sum().item())\n",
                        "--no-trace"),
    }


def test_cpu_run_without_device(runs):
    r, run_dir = runs["cpu"]
    assert r.returncode == 0, r.stderr
    report = json.loads((run_dir / "report.json").read_text())
    text, page = _page(run_dir)
    assert _card(page, "busy").startswith("device busy no device")
    rate = f"{report['steps']['steady_steps_per_s']:.2f} steps/s"
    assert _card(page, "throughput").startswith(f"steady throughput {rate}")
    titles = [page.by_id(s.attrs["aria-labelledby"].split()[0]).text
              for s in page.find("svg", class_="chart")]
    assert "Device utilisation" not in titles
    assert "profile" in page.by_id("timeline").text
    assert titles == ["Phase timeline", "Host CPU of the process tree",
                      "Host memory (RSS) of the process tree", "Steady step-time distribution",
                      "Step time over the run"]
    assert "No device was sampled" in text
    # The histogram holds the steady steps of steps.jsonl (60 steps - warmup).
    bars = page.find("rect", class_="bar")
    counted = sum(int(b.text.split()[0]) for b in bars)
    assert counted == report["steps"]["steady_count"]


def test_crashed_run_renders_and_says_it_crashed(runs):
    r, run_dir = runs["crash"]
    assert r.returncode == 3
    _, page = _page(run_dir)
    (c,) = page.find("div", **{"data-key": "run"})
    assert "alert" in c.attrs["class"].split() and "exit 3" in c.text
    assert "exit status 3" in page.by_id("record").text


def test_run_without_steps_renders_incomplete(runs):
    r, run_dir = runs["nosteps"]
    assert r.returncode == 0, r.stderr
    text, page = _page(run_dir)
    (banner,) = page.find("div", role="alert")
    assert "Measurement incomplete" in banner.text
    assert _card(page, "step") == "steady step none found no steady step was measured"
    assert "not a clean bill of health" in page.by_id("findings").text
    assert not page.find("section", id="steps")


def test_report_rerenders_a_run_dir_in_every_format(runs, tmp_path):
    _, run_dir = runs["cpu"]
    original = (run_dir / "report.html").read_text()
    out = tmp_path / "again.html"
    r = run_cli("report", run_dir, "-o", out)
    assert r.returncode == 0, r.stderr
    assert out.read_text() == original
    md = run_cli("report", run_dir, "--md")
    assert md.returncode == 0 and md.stdout.startswith("# fastenough report")
    js = run_cli("report", run_dir, "--json")
    assert json.loads(js.stdout) == json.loads((run_dir / "report.json").read_text())
    term = run_cli("report", run_dir)
    assert term.returncode == 0 and "Phases" in term.stdout
    again = run_cli("report", run_dir, "--reanalyze", "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["steps"]["steady_count"] == \
        json.loads(js.stdout)["steps"]["steady_count"]


def test_report_of_a_trace(tmp_path):
    out = tmp_path / "t.md"
    r = run_cli("report", EXAMPLE, "-o", out)
    assert r.returncode == 0, r.stderr
    assert "| rank | device |" in out.read_text()
    html = run_cli("report", EXAMPLE, "--html")
    assert html.returncode == 0 and parse(html.stdout).errors == []
    assert "comm-not-overlapped" in html.stdout


def _clean_error(r, *needles):
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr
    for n in needles:
        assert n in r.stderr, r.stderr


def test_report_errors(tmp_path):
    _clean_error(run_cli("report", tmp_path / "nope.json.gz"), "no such file")
    _clean_error(run_cli("report", EXAMPLE, "-o", tmp_path / "x.txt"), "say the format")
    _clean_error(run_cli("report", EXAMPLE, "--reanalyze"), "--reanalyze applies")
    bad = tmp_path / "run"
    bad.mkdir()
    (bad / "meta.json").write_text("{}")
    (bad / "report.json").write_text('{"schema": "fastenough.report/1", ')
    _clean_error(run_cli("report", bad), "report.json: not a readable report")
    _clean_error(run_cli("report", EXAMPLE, "-o", tmp_path / "missing" / "x.html"),
                 "-o ")


def test_run_dir_analysis_shows_progress(runs):
    from fastenough import _core

    _, run_dir = runs["cpu"]
    calls = []
    json.loads(_core.analyze_run_dir(str(run_dir), progress=lambda d, t: calls.append((d, t))))
    assert calls and calls[-1] == (1000, 1000)  # one trace file: thousandths of it
    assert all(t == 1000 for _, t in calls)
    forced = run_cli("report", run_dir, "--reanalyze", "--json",
                     env={"FASTENOUGH_FORCE_PROGRESS": "1"})
    assert forced.returncode == 0, forced.stderr
    json.loads(forced.stdout)  # the bar is on stderr only
