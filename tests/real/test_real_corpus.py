"""The corpus of real programs nobody on the team wrote (tests/real/corpus:
pytorch/examples, nanoGPT, minGPT, timm, PEFT, and drivers in the style of
Lightning, diffusers, transformers, sentence-transformers and PyG), each run
plain and under `fastenough run --quiet --no-history`: the tool must not change
what the program does. Per program: the plain run exits 0; the tool's run exits
the same, prints the same stdout (after the program's masks for timings), the
same number of the program's own warning lines on stderr, no traceback, the
same bytes in the files it names (same_files); and the run directory has its
report.json. Then the findings an expert expects in each report, and those an
expert forbids, with the reason beside each (catalog.py: Program.expect and
Program.forbid); and, for the programs whose findings once came in one run of
two, the same avoidable findings in a second run."""

from __future__ import annotations

import pytest
from catalog import BY_NAME, CORPUS_PROGRAMS, spec_matches, warning_lines
from real_pairs import pairs, run_program  # noqa: F401 - the fixture


def params() -> list:
    return [pytest.param(p.name, id=p.name) for p in CORPUS_PROGRAMS]


@pytest.mark.real
@pytest.mark.parametrize("name", params())
def test_same_behaviour_plain_and_under_the_tool(pairs, name):
    pair = pairs(name)
    program, p, t = pair.program, pair.plain, pair.tool
    assert p.returncode == 0, ("plain run failed", p.stderr[-3000:])
    assert t.returncode == p.returncode, ("exit status differs", t.stderr[-3000:])
    assert "Traceback" not in t.stderr, t.stderr[-3000:]
    assert program.normalised_stdout(t.stdout) == program.normalised_stdout(p.stdout), \
        ("stdout differs", p.stdout[-2000:], t.stdout[-2000:], t.stderr[-2000:])
    pw, tw = warning_lines(p.stderr), warning_lines(t.stderr)
    assert len(tw) == len(pw), ("warnings differ", pw, tw)
    for f in program.same_files:
        assert (pair.tool_dir / f).read_bytes() == (pair.plain_dir / f).read_bytes(), f
    assert (pair.run_dir / "report.json").exists(), sorted(pair.run_dir.glob("*"))


JUDGED = [p.name for p in CORPUS_PROGRAMS if p.expect or p.forbid]


@pytest.mark.real
@pytest.mark.parametrize("name", JUDGED)
def test_findings_an_expert_would_sign(pairs, name):
    pair = pairs(name)
    assert pair.tool.returncode == pair.plain.returncode, pair.tool.stderr[-3000:]
    findings = pair.findings()
    seen = [f"{f['code']}[{f['verdict']}]" for f in findings]
    for spec, why in pair.program.expect:
        assert any(spec_matches(spec, f) for f in findings), \
            (f"expected {spec}: {why}", seen)
    for spec, why in pair.program.forbid:
        hits = [f for f in findings if spec_matches(spec, f)]
        assert not hits, (f"forbidden {spec}: {why}",
                          [(f["code"], f["verdict"], f["title"]) for f in hits])


# dcgan's dataloader-bound once came in one of two identical runs (issue 22): a
# second run must find the same avoidable things. Not here yet, because they
# still differ run to run: Lightning's TensorDataset dataloader-bound (18% of a
# train step, in some runs only) and minGPT's recompute-prefix on its
# generate() (found in one of two runs of the benchmark).
REPEATED = ["ex-dcgan-fake", "hf-trainer-evaluate"]


@pytest.mark.real
@pytest.mark.parametrize("name", REPEATED)
def test_the_same_avoidable_findings_run_after_run(pairs, tmp_path, name):
    first = pairs(name)
    second = run_program(BY_NAME[name], tmp_path)
    assert second.tool.returncode == first.tool.returncode, second.tool.stderr[-3000:]

    def avoidable(pair) -> set:
        return {f["code"] for f in pair.findings() if f["verdict"] == "avoidable"}

    assert avoidable(second) == avoidable(first)


@pytest.mark.real
def test_the_agent_never_slows_the_loop_as_it_runs(pairs):
    """functorch's Lennard-Jones fit (issue 37, item 7): each step's CPU time,
    written by the program (--times), plain and under the tool. Under the tool
    the last 100 steps cost no more than twice the first 100 past the warm-up,
    and no more than twice the plain run's last 100 (before the fix: 15 ms
    growing to 105 ms a step, as modes of the logits check piled up: 7 times).
    Each stretch by its 10th percentile, the floor a step's work sets: CPU
    time also stretches on a shared machine (a busy hyperthread sibling, a
    cache shared with other work), and CI's machine once gave the tool's run
    a median of 18.2 ms in its first 100 steps and 27.9 ms in its last 100."""
    import json
    import statistics

    def floor(times: list) -> float:
        return statistics.quantiles(times, n=10)[0]

    pair = pairs("functorch-lennard-jones")
    assert pair.tool.returncode == 0, pair.tool.stderr[-3000:]
    plain = json.loads((pair.plain_dir / "times.json").read_text())["cpu"]
    tool = json.loads((pair.tool_dir / "times.json").read_text())["cpu"]
    assert len(tool) == len(plain) == 1000, (len(plain), len(tool))
    first, last = floor(tool[20:120]), floor(tool[-100:])
    # On failure, the whole run by 100 steps: a trend, or a stretch of load?
    series = {name: [round(statistics.median(t[i:i + 100]) * 1e3, 1)
                     for i in range(0, len(t), 100)] for name, t in
              (("plain ms", plain), ("tool ms", tool))}
    assert last <= 2 * first, (first, last, series)
    assert last <= 2 * floor(plain[-100:]), (floor(plain[-100:]), last, series)


@pytest.mark.real
def test_a_window_cut_at_its_first_step_s_end_keeps_that_step(pairs):
    """functorch's Lennard-Jones fit (issue 37, item 9): one profiled step
    costs more than the window's share of the memory bound (its backward runs
    in C++, where the watchdog cannot stop it), so the window ends at that
    step's end. In one run of two the watchdog's stop came while the step's end
    was being counted, and the window was abandoned as "recorded nothing" with
    the step whole: the step is kept, and the rise stays inside the bound."""
    import json

    pair = pairs("functorch-lennard-jones")
    meta = json.loads((pair.run_dir / "meta.json").read_text())
    profile = meta["agents"][0]["profile"]
    assert profile["trace"] and not profile.get("skipped"), profile
    assert profile["last_step"] >= profile["first_step"], profile
    assert 0 < profile["peak_rss_rise_bytes"] <= profile["memory_bound_bytes"], profile


def test_finding_specs_parse_and_match():
    f = {"code": "sync-in-loop", "verdict": "bounded",
         "where": [{"file": "/x/main.py", "line": 3}]}
    assert spec_matches("sync-in-loop", f) and spec_matches("sync-in-loop@main.py", f)
    assert spec_matches("*[bounded]", f) and not spec_matches("*[avoidable]", f)
    assert not spec_matches("sync-in-loop@train.py", f)
    assert spec_matches("sync-in-loop@main.py:3", f)
    assert not spec_matches("sync-in-loop@main.py:4", f)
    with pytest.raises(ValueError):
        spec_matches("no spaces allowed", f)


def test_corpus_names_unique_and_described():
    names = [p.name for p in CORPUS_PROGRAMS]
    assert len(names) == len(set(names))
    for p in CORPUS_PROGRAMS:
        assert (p.root / p.argv[0]).exists(), p
        assert (p.root / "README.md").exists(), p  # origin, commit, every change
        if p.root.name != "drivers":
            assert (p.root / "LICENSE").exists(), p
