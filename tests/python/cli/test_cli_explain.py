"""`fastenough explain` and the finding catalog (docs/findings.md): every code
the code base can emit has a section and every section is a code; each section
answers what the finding means and what to do; the command prints a section,
lists the codes, and refuses an unknown code with the nearest ones."""

from __future__ import annotations

import json
import os
import pty
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DATA, REPO, run_cli

from fastenough import _core
from fastenough.findings_doc import catalog_path, read_sections

FINDINGS_MD = REPO / "docs" / "findings.md"
PARTS = ["**What it means.**", "**Why it", "**Evidence.**", "**What to do.**",
         "**How the saving is bounded.**", "**When it is a false alarm.**"]


def _emitted_in_sources() -> set[str]:
    """Codes written as literals where findings are made: the C++ detectors,
    checks and run-directory findings, and the agent's checks in Python."""
    patterns = [
        re.compile(r'NewFinding\(\s*"([a-z0-9-]+)"'),
        re.compile(r'Make\(\s*"([a-z0-9-]+)"'),
        re.compile(r'\.code = "([a-z0-9-]+)"'),
        re.compile(r'(?:serial \? )?"(serial-small-gemm|unfused-projections)"'),
    ]
    codes: set[str] = set()
    for path in (REPO / "cpp" / "fastenough").rglob("*.cc"):
        if path.name.endswith("_test.cc"):
            continue
        text = path.read_text(encoding="utf-8")
        for p in patterns:
            codes.update(p.findall(text))
    py = re.compile(r'\b(?:add|decide)\(\s*"([a-z0-9-]+)"')
    for path in (REPO / "python" / "fastenough" / "agent").rglob("*.py"):
        codes.update(py.findall(path.read_text(encoding="utf-8")))
    return codes


def test_the_source_scan_finds_codes_of_each_kind():
    emitted = _emitted_in_sources()
    # a trace detector, an agent check decided in C++, a sampler finding, a run finding
    assert {"sync-in-loop", "padding-waste", "device-shared", "step-bound",
            "serial-small-gemm", "unfused-projections"} <= emitted


def test_every_code_has_a_section_and_every_section_is_a_code():
    catalog = {e["code"] for e in _core.finding_catalog()}
    emitted = _emitted_in_sources()
    assert emitted - catalog == set(), "codes emitted but not in findings/catalog.cc"
    sections = set(read_sections(FINDINGS_MD))
    assert catalog - sections == set(), "codes without a section in docs/findings.md"
    assert sections - catalog == set(), "sections of docs/findings.md that are no code"
    assert len(catalog) == 35


def test_each_section_has_the_catalog_title_and_every_part():
    titles = {e["code"]: e["title"] for e in _core.finding_catalog()}
    for code, s in read_sections(FINDINGS_MD).items():
        assert s.title == titles[code], code
        missing = [p for p in PARTS if p not in s.text]
        assert missing == [], f"{code}: {missing}"
        assert "/work/shared" not in s.text and "DESIGN.md" not in s.text


def test_the_evidence_keys_reports_show_are_explained():
    """Every evidence key of every finding in these reports is named in its
    code's section, so a new key cannot appear undocumented."""
    traces = [REPO / "examples" / "traces" / "train_a100_rank3.json.gz",
              DATA / "detectors" / "waste_trace.json"]
    sections = read_sections(FINDINGS_MD)
    seen = 0
    for args in ([str(t)] for t in traces):
        r = run_cli("analyze", "--json", *args)
        assert r.returncode in (0, 1), r.stderr
        for f in json.loads(r.stdout)["findings"]:
            text = sections[f["code"]].text
            undocumented = [k for k in f["evidence"] if f"`{k}`" not in text]
            assert undocumented == [], f"{f['code']}: {undocumented}"
            seen += 1
    ranks = run_cli("analyze", "--json", DATA / "detectors" / "straggler_rank0.json",
                    DATA / "detectors" / "straggler_rank1.json")
    for f in json.loads(ranks.stdout)["findings"]:
        assert [k for k in f["evidence"] if f"`{k}`" not in sections[f["code"]].text] == []
        seen += 1
    assert seen >= 5


def _evidence_keys(source: str) -> set[str]:
    keys = set(re.findall(r'AddEvidence\(f, "([a-z0-9_]+)"', source))
    keys |= set(re.findall(r'evidence\.emplace_back\("([a-z0-9_]+)"', source))
    for block in re.findall(r"(?:Text)?Evidence\(f, in, \{([^}]*)\}\)", source):
        keys |= set(re.findall(r'"([a-z0-9_]+)"', block))
    return keys


def test_the_evidence_keys_in_the_sources_are_explained():
    """The same from the sources, for findings the reports above do not show:
    each VerdictOn function of the agent's checks, and each file that makes one code."""
    sections = read_sections(FINDINGS_MD)
    undocumented = {}
    verdicts = (REPO / "cpp" / "fastenough" / "checks" / "verdicts.cc").read_text(encoding="utf-8")
    functions = re.split(r"\nMaybeFinding VerdictOn", verdicts)[1:]
    for fn in functions:
        code = re.search(r'Make\("([a-z0-9-]+)"', fn).group(1)
        keys = _evidence_keys(fn) | ({"saving_capped_at_step_median"}
                                     if "SavingFromProbe(" in fn else set())
        undocumented[code] = sorted(k for k in keys if f"`{k}`" not in sections[code].text)
    assert len(functions) == 11
    one_code = [*(REPO / "cpp" / "fastenough" / "findings").glob("*.cc"),
                *(REPO / "cpp" / "fastenough" / "rundir").glob("*.cc")]
    for path in one_code:
        text = path.read_text(encoding="utf-8")
        codes = set(re.findall(r'NewFinding\(\s*"([a-z0-9-]+)"', text))
        if path.name.endswith("_test.cc") or len(codes) != 1:
            continue
        (code,) = codes
        undocumented[code] = sorted(k for k in _evidence_keys(text)
                                    if f"`{k}`" not in sections[code].text)
    assert len(undocumented) >= 20
    assert {c: k for c, k in undocumented.items() if k} == {}


def test_explain_a_code_prints_its_section(tmp_path):
    r = run_cli("explain", "sync-in-loop", "--md", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == read_sections(FINDINGS_MD)["sync-in-loop"].text
    assert r.stdout.startswith("## sync-in-loop\n\n**Host waits for the device")
    assert "total += loss_fn(model(x), y).detach()" in r.stdout
    assert "## pageable-memcpy" not in r.stdout  # only that section


def test_piped_explain_is_plain_text_of_80_columns(tmp_path):
    # Issue 36: `fastenough explain CODE | less` showed Markdown's marks; a pipe
    # gets the section as text: no escape codes, no `**` / `##` / fences.
    r = run_cli("explain", "sync-in-loop", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("sync-in-loop\n\nHost waits for the device"), r.stdout[:200]
    assert "\x1b" not in r.stdout
    for mark in ("**", "## ", "```", "](", "[/"):
        assert mark not in r.stdout, mark
    assert "What it means. Inside steady steps" in r.stdout
    assert "total += loss_fn(model(x), y).detach()" in r.stdout  # the code, as code
    assert max(len(line) for line in r.stdout.splitlines()) <= 80
    assert all(line == line.rstrip() for line in r.stdout.splitlines())


def test_explain_accepts_upper_case():
    r = run_cli("explain", "Padding-Waste")
    assert r.returncode == 0 and r.stdout.startswith("padding-waste\n")


def test_explain_without_a_code_lists_every_code_with_its_title():
    r = run_cli("explain")
    assert r.returncode == 0, r.stderr
    lines = [line for line in r.stdout.splitlines() if line.strip()]
    catalog = _core.finding_catalog()
    for e in catalog:
        assert any(re.fullmatch(rf"{e['code']}\s+{re.escape(e['title'])}", ln) for ln in lines), e
    assert len(lines) == len(catalog) + 1  # and the hint line


def test_an_unknown_code_exits_2_with_the_nearest_codes():
    r = run_cli("explain", "sync-in-lop")
    assert r.returncode == 2
    assert r.stdout == ""
    assert "unknown finding code 'sync-in-lop'; did you mean sync-in-loop" in r.stderr
    assert "Traceback" not in r.stderr
    r = run_cli("explain", "zzzz")
    assert r.returncode == 2 and "did you mean" not in r.stderr
    assert "`fastenough explain` lists them all" in r.stderr


def test_a_terminal_gets_rendered_markdown():
    """On a terminal rich renders the Markdown: no '## ' heading marks, bold
    through escape sequences."""
    master, slave = pty.openpty()
    env = dict(os.environ, COLUMNS="100", TERM="xterm")
    p = subprocess.Popen([sys.executable, "-m", "fastenough", "explain", "padding-waste"],
                         stdout=slave, stderr=subprocess.PIPE, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert p.wait(timeout=60) == 0, p.stderr.read()
    out = b"".join(chunks).decode("utf-8", "replace")
    assert "padding-waste" in out and "Padded tokens in batches" in out
    assert "## padding-waste" not in out and "**What it means.**" not in out
    assert "\x1b[" in out


def test_an_installed_package_reads_its_own_copy(tmp_path):
    """As in a wheel: the package without the repository, the catalog installed
    beside it (bindings/CMakeLists.txt installs docs/findings.md there). Run
    with -S: an editable install's import hook would otherwise find the
    checkout first."""
    site = tmp_path / "site"
    shutil.copytree(REPO / "python" / "fastenough", site / "fastenough",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    shutil.copy(Path(_core.__file__), site / "fastenough")
    (site / "fastenough" / "docs").mkdir(exist_ok=True)
    shutil.copy(FINDINGS_MD, site / "fastenough" / "docs" / "findings.md")
    prelude = f"import sys; sys.path.insert(0, {str(site)!r}); "
    where = subprocess.run(
        [sys.executable, "-S", "-c", prelude + "from fastenough.findings_doc import "
         "catalog_path; print(catalog_path())"], cwd=tmp_path, capture_output=True, text=True)
    assert where.stdout.strip() == str(site / "fastenough" / "docs" / "findings.md"), where.stderr
    r = subprocess.run(
        [sys.executable, "-S", "-c", prelude + "from fastenough.cli.main import main; "
         "sys.exit(main(['explain', 'step-bound', '--md']))"], cwd=tmp_path, capture_output=True,
        text=True)
    assert r.returncode == 0 and r.stdout.startswith("## step-bound\n"), r.stderr


def test_the_checkout_reads_the_repository_file():
    assert catalog_path() == FINDINGS_MD


@pytest.mark.parametrize("code", ["train-mode-in-eval"])
def test_a_result_changing_code_says_so(code):
    entry = next(e for e in _core.finding_catalog() if e["code"] == code)
    assert entry["changes_results"] is True
    assert "changes results" in read_sections(FINDINGS_MD)[code].text
