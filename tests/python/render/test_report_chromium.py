"""The HTML report in a real browser: Debian's chromium, headless, network off,
loads report.html; no console message, no script error, no request leaves the
file; the key figures (steady throughput, top finding code, phase names) are in
the rendered page; a PNG screenshot is kept under tests/artifacts/."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from chromium_page import find_chromium, load
from conftest import REPO, run_cli
from report_fixtures import SLOW_RANK, many_ranks_report
from typed_reports import report_to_html, typed

from fastenough.render.view.steps import steady_rates

CHROMIUM = find_chromium()
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="chromium is not installed (scripts/setup.sh installs Debian's `chromium` where "
    "apt-get can; FASTENOUGH_CHROMIUM=/path/to/chrome uses another)")

ARTIFACTS = Path(os.environ.get("FASTENOUGH_TEST_ARTIFACTS", REPO / "tests" / "artifacts"))


def _keep(name: str, png: bytes) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    path.write_bytes(png)
    print(f"\nscreenshot: {path}")
    return path


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory) -> Path:
    pytest.importorskip("torch")
    tmp = tmp_path_factory.mktemp("demo")
    r = run_cli("demo", cwd=tmp, env={"OMP_NUM_THREADS": "1"}, timeout=600)
    assert r.returncode == 0, r.stderr
    (run_dir,) = (tmp / ".fastenough" / "runs").iterdir()
    return run_dir


def test_demo_report_in_chromium(demo_run):
    report = json.loads((demo_run / "report.json").read_text())
    page = load(str(demo_run / "report.html"), CHROMIUM)
    assert page.problems() == []
    assert page.requests and all(u.startswith("file:") for u in page.requests)
    throughput = steady_rates(typed(report))[0]
    assert throughput.endswith("steps/s")
    assert throughput in page.text
    top = report["findings"][0]["code"]
    assert top in page.text
    for phase in ("startup", "warmup", "steady", "profile"):
        assert phase in page.text
    assert page.dom.count("<svg") >= 4
    assert page.screenshot.startswith(b"\x89PNG") and page.height > 1000
    _keep("report-demo.png", page.screenshot)


def test_64_rank_report_in_chromium(tmp_path):
    path = tmp_path / "report.html"
    path.write_text(report_to_html(many_ranks_report(64)))
    page = load(str(path), CHROMIUM)
    assert page.problems() == []
    assert "3.98 steps/s" in page.text and "straggler-rank" in page.text
    assert f"{SLOW_RANK} (12.00 s)" in page.text  # the phases' slowest ranks
    # Readable: the page is not 64 screens long.
    assert page.height < 6000
    _keep("report-64-ranks.png", page.screenshot)


def test_a_page_that_asks_the_network_is_caught(tmp_path):
    """The check itself can fail: a remote image and a console message are seen."""
    path = tmp_path / "bad.html"
    path.write_text('<html><body><img src="https://example.com/x.png">'
                    '<script>console.error("boom")</script></body></html>')
    page = load(str(path), CHROMIUM)
    problems = page.problems()
    assert any("https://example.com/x.png" in p for p in problems)
    assert any("boom" in p for p in problems)
