"""`fastenough mcp` driven by the real MCP client library over stdio, as an agent drives it.

Each test starts the server (`python -m fastenough mcp`) with the `mcp` package's
own Client and StdioServerParameters: no mock anywhere. The programs measured
are small torch programs written into the test's directory, and the bundled
demo. The whole loop on the demo (measure, read the findings, swap in the fixed
script, ab with outputs agreeing, decide) runs through MCP only; with
FASTENOUGH_MCP_TRANSCRIPT=FILE it writes its transcript there.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

import pytest

pytest.importorskip("mcp.server.mcpserver", reason="fastenough mcp needs the `mcp` package "
                    "(pip install 'fastenough[agent]'; scripts/setup.sh installs it)")

import anyio  # noqa: E402 - after the skip: anyio comes with mcp
from mcp import Client, StdioServerParameters  # noqa: E402

PY = sys.executable
TOOLS = {"run", "analyze", "report", "ab", "compare", "diff", "decide", "lint", "replay",
         "explain"}

# A small torch program: a steady evaluation loop that records its outputs. SCALE
# and GRAD are replaced per variant.
PROGRAM = """\
import sys
import torch
import fastenough

torch.manual_seed(0)
torch.set_num_threads(1)
model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 8))
model.eval()
data = torch.randn(STEPS, 16, 32)
outs = []
with GRAD:
    for x in data:
        outs.append(model(x) * SCALE)
fastenough.record("outputs", torch.cat(outs).detach())
print("done", len(outs), "steps")
"""


def program(path: Path, steps: int = 120, scale: str = "1.0",
            grad: str = "torch.enable_grad()") -> Path:
    path.write_text(PROGRAM.replace("STEPS", str(steps)).replace("SCALE", scale)
                    .replace("GRAD", grad))
    return path


def server() -> StdioServerParameters:
    env = dict(os.environ)
    env.pop("FASTENOUGH_RUN_DIR", None)
    # The read-only tools' call files: not into the user's ~/.cache during tests.
    env.setdefault("FASTENOUGH_MCP_SCRATCH", os.path.join(tempfile.gettempdir(),
                                                          f"fastenough-mcp-tests-{os.getuid()}"))
    return StdioServerParameters(command=sys.executable, args=["-m", "fastenough", "mcp"],
                                 env=env)


def answer_of(result) -> dict:
    """The answer: structured content, which the text content repeats as JSON."""
    assert result.content and result.content[0].type == "text"
    text = json.loads(result.content[0].text)
    assert text == result.structured_content
    return result.structured_content


async def call(client, name: str, args: dict, progress: list | None = None):
    async def on_progress(done, total, message):
        if progress is not None:
            progress.append((done, total, message))

    return await client.call_tool(name, args, progress_callback=on_progress)


def test_tools_are_listed_with_their_schemas_and_the_skill():
    async def scenario():
        async with Client(server()) as c:
            listed = (await c.list_tools()).tools
            instructions = c.instructions
            skill = await c.read_resource("fastenough://skill")
            return listed, instructions, skill

    listed, instructions, skill = anyio.run(scenario)
    by_name = {t.name: t for t in listed}
    assert set(by_name) == TOOLS
    required = {"run": {"command", "cwd"}, "ab": {"command_a", "command_b", "cwd"},
                "analyze": {"paths", "cwd"}, "report": {"path", "cwd"},
                "compare": {"a", "b", "cwd"}, "diff": {"a", "b", "cwd"},
                "decide": {"run_dir", "runs", "cwd"}, "lint": {"paths", "cwd"},
                "replay": {"path", "cwd"}, "explain": set()}
    for name, tool in by_name.items():
        schema = tool.input_schema
        assert schema["type"] == "object", name
        assert set(schema.get("required", [])) == required[name], name
        assert len(tool.description) > 80, name
        for prop, spec in schema["properties"].items():
            assert spec.get("description") or prop in ("command", "command_a", "command_b"), \
                (name, prop)
    assert by_name["run"].input_schema["properties"]["command"]["type"] == "array"
    assert by_name["ab"].input_schema["properties"]["trace"]["enum"] == ["first", "all", "none"]
    assert by_name["analyze"].annotations.read_only_hint is True
    assert by_name["run"].annotations.read_only_hint is False
    from fastenough.mcp import skill_text

    assert instructions == skill_text()
    assert skill.contents[0].text == skill_text()
    assert "Measure before changing" in skill_text()


def _parsers():
    from fastenough.cli.main import build_parser
    from fastenough.mcp import options

    return options.verb_parsers(build_parser())


def _schemas(parsers) -> dict[str, dict]:
    from fastenough.mcp.server import build_server

    async def listed():
        return await build_server(parsers).list_tools()

    return {t.name: t.input_schema for t in anyio.run(listed)}


def test_every_option_of_a_verb_is_in_its_tool_or_left_out_with_a_reason():
    """The tools' options come from the CLI's declarations (mcp/options.py): each option
    of each verb is a tool argument, covered by one in a JSON caller's shape, or left out
    with a reason; and the tool's function takes every argument the schema offers."""
    import inspect

    from fastenough.mcp import options, tools

    parsers = _parsers()
    for tool, (verb, spec) in options.TOOLS.items():
        assert options.uncovered(tool, parsers) == [], tool
        actions = options.verb_actions(parsers[verb])
        for name, s in spec.items():
            if isinstance(s, options.Own):
                assert s.why and set(s.covers) <= set(actions), (tool, name)
            if isinstance(s, options.FromCli):
                assert s.dest in actions, (tool, name)
            if isinstance(s, options.Excluded):
                assert name in actions and s.why, (tool, name)
            else:
                assert name in inspect.signature(getattr(tools, tool)).parameters, (tool, name)
    # An option added to a verb is uncovered until its tool takes it or says why not.
    parsers["run"].add_argument("--new-option", type=int, help="something new")
    assert options.uncovered("run", parsers) == ["new_option"]


def test_a_cli_option_appears_in_its_tool_schema_as_the_cli_declares_it(monkeypatch):
    from fastenough.mcp import options

    parsers = _parsers()
    run = _schemas(parsers)["run"]["properties"]
    steps = run["trace_steps"]
    assert "steps in the profiler window (default 5)" in steps["description"]
    assert steps["default"] == 5 and steps["minimum"] == 1 and steps["maximum"] == 1000
    assert run["trace"]["default"] is True and "--no-trace" in run["trace"]["description"]
    assert run["probe"]["description"].endswith("enable the agent's runtime checks")
    compare = _schemas(parsers)["compare"]["properties"]
    assert "-0.0 vs 0.0 included" in compare["exact"]["description"]
    # Declaring one more of run's options (--hz) puts it in the tool, with the CLI's help,
    # type, bounds and default.
    monkeypatch.setitem(options.TOOLS, "run", (
        "run", {**options.TOOLS["run"][1], "hz": options.FromCli("hz")}))
    hz = _schemas(parsers)["run"]["properties"]["hz"]
    assert "sampling rate (default 2 per second)" in hz["description"]
    assert hz["type"] == "number" and hz["default"] == 2.0
    assert hz["exclusiveMinimum"] == 0 and hz["maximum"] == 1000


def test_run_a_small_torch_program_then_decide(tmp_path):
    program(tmp_path / "eval.py")
    progress: list = []

    async def scenario():
        async with Client(server()) as c:
            run = await call(c, "run", {"command": [sys.executable, "eval.py"],
                                        "cwd": str(tmp_path), "top": 10}, progress)
            run_dir = answer_of(run)["files"]["run_dir"]
            plain = await call(c, "decide", {"run_dir": run_dir, "runs": 10,
                                             "cwd": str(tmp_path)})
            return run, plain

    run, plain = anyio.run(scenario)
    a = answer_of(run)
    assert not run.is_error, a
    assert list(a)[:4] == ["summary", "measurement", "exit", "findings"]
    assert a["measurement"]["status"] == "complete", a["measurement"]
    assert a["exit"] == {"code": 0, "meaning": "the program succeeded"}
    # The figures are the report view's text (render/units), as the terminal shows them.
    assert int(re.search(r"(\d+) steps\)$", a["figures"]["step"]).group(1)) > 10
    assert _steps_counted(a) > 10
    codes = [f["code"] for f in a["findings"]]
    assert "autograd-in-eval" in codes, codes
    f = a["findings"][codes.index("autograd-in-eval")]
    assert f["verdict"] == "avoidable" and f["action"]
    assert any("eval.py" in w for w in f["where"]), f["where"]
    run_dir = Path(a["files"]["run_dir"])
    full = json.loads((run_dir / "report.json").read_text())
    assert full["steps"]["mode"] == "eval"
    assert [f["code"] for f in full["findings"][:10]] == codes
    assert a["findings_left_out"] == len(full["findings"]) - len(codes)
    assert (run_dir / "report.json").is_file() and (run_dir / "outputs").is_dir()
    assert a["program_output"]["stdout_tail"].endswith("done 120 steps")
    # Progress: the run directory first, then steps as they are recorded.
    assert progress and str(run_dir) in progress[0][2]

    d = answer_of(plain)
    assert not plain.is_error, d
    assert d["measurement"]["status"] == "complete"
    # A run of a second, ten runs left: nothing is worth hours of work. But a
    # finding without a saving (autograd-in-eval when no probe priced it) is a
    # reason to measure, not to stop (issue 37): then nothing is frozen.
    assert d["any_pays"] is False
    unpriced = [f["code"] for f in full["findings"] if f["verdict"] == "avoidable"
                and (f.get("saving") or {}).get("per_step_ns") is None]
    if unpriced:
        assert d["recommendation"] == "measure" and d["unpriced"] == unpriced, d
        assert d["freeze"] is None and not (run_dir / "freeze.json").exists()
        assert "measure" in d["summary"] and "not frozen" in d["summary"], d["summary"]
    else:
        assert d["recommendation"] == "freeze", d
        assert Path(d["freeze"]).is_file() and Path(d["freeze"]).parent == run_dir
    assert d["reopen"]


def test_ab_two_variants_with_recorded_outputs(tmp_path):
    program(tmp_path / "a.py", steps=60)
    # B computes under inference mode: the same numbers...
    program(tmp_path / "b.py", steps=60, grad="torch.inference_mode()")
    # ...and C changes them.
    program(tmp_path / "c.py", steps=60, scale="1.01", grad="torch.inference_mode()")

    async def scenario():
        async with Client(server()) as c:
            same = await call(c, "ab", {"command_a": [sys.executable, "a.py"],
                                        "command_b": [sys.executable, "b.py"],
                                        "cwd": str(tmp_path), "rounds": 1, "trace": "none"})
            differ = await call(c, "ab", {"command_a": [sys.executable, "a.py"],
                                          "command_b": [sys.executable, "c.py"],
                                          "cwd": str(tmp_path), "rounds": 1, "trace": "none"})
            return same, differ

    same, differ = anyio.run(scenario)
    s = answer_of(same)
    assert not same.is_error, s
    assert list(s)[:3] == ["summary", "measurement", "exit"]
    assert s["outputs"]["verdict"] in ("bitwise-equal", "within-tolerance"), s["outputs"]
    assert [r["run"] for r in s["figures"]["runs"]] == ["A1", "A2", "B1", "B2"]
    assert all(Path(r["run_dir"], "report.json").is_file() for r in s["figures"]["runs"])
    assert Path(s["files"]["ab_json"]).is_file()
    assert s["exit"]["code"] == 0
    # Outputs that differ are the answer of the verify verb, not a tool error.
    d = answer_of(differ)
    assert not differ.is_error, d
    assert d["outputs"]["verdict"] == "differs"
    assert d["outputs"]["worst"][0]["key"] == "outputs"
    assert d["exit"]["code"] == 1 and "outputs differ" in d["summary"]


def test_errors_come_back_as_tool_errors_and_the_server_keeps_serving(tmp_path):
    program(tmp_path / "ok.py", steps=30)
    (tmp_path / "fails.py").write_text("import torch\nprint('about to fail')\n"
                                       "raise SystemExit(3)\n")
    (tmp_path / "slow.py").write_text(
        "import os, time, torch\n"
        "open('slow.pid', 'w').write(str(os.getpid()))\n"
        "m = torch.nn.Linear(8, 8)\n"
        "for i in range(100000):\n"
        "    m(torch.randn(4, 8))\n"
        "    time.sleep(0.01)\n")
    results: dict = {}

    async def scenario():
        async with Client(server()) as c:
            results["bad cwd"] = await call(c, "run", {"command": ["python", "x.py"],
                                                       "cwd": str(tmp_path / "nowhere")})
            results["bad path"] = await call(c, "analyze", {"paths": ["missing.json.gz"],
                                                            "cwd": str(tmp_path)})
            results["bad run dir"] = await call(c, "decide", {"run_dir": "nope", "runs": 3,
                                                              "cwd": str(tmp_path)})
            results["not found"] = await call(c, "run", {"command": ["no-such-program-x"],
                                                         "cwd": str(tmp_path)})
            results["fails"] = await call(c, "run", {"command": [sys.executable, "fails.py"],
                                                     "cwd": str(tmp_path)})
            results["string command"] = await call(c, "run", {"command": "python ok.py",
                                                              "cwd": str(tmp_path)})
            # A cancelled call: cancel once the program is in its loop.
            progress: list = []
            with anyio.move_on_after(60) as scope:
                async with anyio.create_task_group() as tg:
                    async def slow():
                        await call(c, "run", {"command": [sys.executable, "slow.py"],
                                              "cwd": str(tmp_path)}, progress)

                    tg.start_soon(slow)
                    while not any("steady" in m for _, _, m in progress):
                        await anyio.sleep(0.2)
                    tg.cancel_scope.cancel()
            assert not scope.cancelled_caught, "the slow run never reached its steady loop"
            results["progress"] = progress
            # The server stopped the program and wrote what was measured.
            run_dir = Path(progress[0][2].rpartition("run directory ")[2])
            for _ in range(150):
                if (run_dir / "report.json").is_file():
                    break
                await anyio.sleep(0.2)
            results["cancelled"] = await call(c, "report", {"path": str(run_dir),
                                                            "cwd": str(tmp_path)})
            results["after"] = await call(c, "run", {"command": [sys.executable, "ok.py"],
                                                     "cwd": str(tmp_path),
                                                     "require_complete": False})

    anyio.run(scenario)

    def error(name):
        r = results[name]
        assert r.is_error, name
        return answer_of(r)

    assert error("bad cwd")["error"]["kind"] == "bad-input"
    e = error("bad path")["error"]
    assert e["kind"] == "bad-input" and e["exit_code"] == 2 and "missing.json.gz" in e["message"]
    assert error("bad run dir")["error"]["kind"] == "bad-input"
    e = error("not found")["error"]
    assert e["kind"] == "command-not-found" and e["exit_code"] == 127
    failed = error("fails")
    assert failed["error"]["kind"] == "command-failed" and failed["error"]["exit_code"] == 3
    # The report of the failed run comes with the error: what was measured, the output.
    assert failed["measurement"]["status"] in ("blind", "partial")
    assert failed["exit"]["code"] == 3
    assert "about to fail" in failed["program_output"]["stdout_tail"]
    assert results["string command"].is_error  # the schema wants a list: no shell
    # Cancelled: the program was ended (its pid is gone), the run directory kept.
    pid = int((tmp_path / "slow.pid").read_text())
    for _ in range(50):
        if not Path(f"/proc/{pid}").exists():
            break
        time.sleep(0.1)
    assert not Path(f"/proc/{pid}").exists(), "the cancelled run's program is still alive"
    rep = answer_of(results["cancelled"])
    assert not results["cancelled"].is_error, rep
    assert rep["figures"]["run"].startswith("signal 15") and _steps_counted(rep) > 10
    # And the server went on serving.
    after = answer_of(results["after"])
    assert not results["after"].is_error, after
    assert after["exit"]["code"] == 0


def test_a_time_limit_stops_the_program_and_keeps_what_was_measured(tmp_path):
    (tmp_path / "long.py").write_text(
        "import time, torch\nm = torch.nn.Linear(8, 8)\n"
        "for i in range(100000):\n    m(torch.randn(4, 8))\n    time.sleep(0.005)\n")

    async def scenario():
        async with Client(server()) as c:
            return await call(c, "run", {"command": [sys.executable, "long.py"],
                                         "cwd": str(tmp_path), "timeout_s": 6, "trace": False})

    r = anyio.run(scenario)
    a = answer_of(r)
    assert r.is_error and a["error"]["kind"] == "time-limit", a
    assert a["exit"]["code"] == 143  # SIGTERM, forwarded by fastenough run
    assert _steps_counted(a) > 10
    assert Path(a["files"]["report_json"]).is_file()


def _steps_counted(a: dict) -> int:
    """The steps a run's answer counted: its first steps line, "123 steps: median ..."."""
    return int(re.match(r"(\d+) steps: ", a["figures"]["steps"][0]).group(1))


def _abbreviate(a: dict) -> dict:
    keep = {"error", "summary", "measurement", "exit", "verdict", "speed", "ratio", "outputs",
            "any_pays", "freeze"}
    out = {k: v for k, v in a.items() if k in keep}
    if "findings" in a:
        out["findings"] = [{k: f[k] for k in ("code", "verdict", "where", "saving")}
                           for f in a["findings"]]
    if isinstance(out.get("outputs"), dict):
        out["outputs"] = {k: out["outputs"][k] for k in ("verdict", "counts")
                          if k in out["outputs"]}
    if "files" in a:
        out["files"] = {k: v for k, v in a["files"].items() if k in ("run_dir", "ab_json")}
    return out


def test_the_whole_loop_on_the_demo_through_mcp_only(tmp_path):
    """Measure, read the findings, apply the fix, ab with outputs agreeing, decide."""
    from fastenough.demo import workload

    source = Path(workload.__file__).read_text()
    (tmp_path / "eval.py").write_text(source)
    transcript: list = []

    async def step(c, name, args):
        r = await call(c, name, args)
        a = answer_of(r)
        transcript.append({"call": name, "arguments": args, "is_error": r.is_error,
                           "answer": _abbreviate(a)})
        return r, a

    async def scenario():
        async with Client(server()) as c:
            # 1. Measure before changing.
            r, measured = await step(c, "run", {"command": [PY, "eval.py", "--items", "96"],
                                                "cwd": str(tmp_path)})
            assert not r.is_error, measured
            # 2. Read the findings: the waste the demo plants, in eval.py.
            avoidable = {f["code"] for f in measured["findings"] if f["verdict"] == "avoidable"}
            assert "autograd-in-eval" in avoidable or "full-vocab-logits" in avoidable, measured
            r, explained = await step(c, "explain", {"code": measured["findings"][0]["code"]})
            assert not r.is_error and explained["text"]
            # 3. Apply the fix: keep the original as side A, swap the fixed script in.
            (tmp_path / "eval_before.py").write_text(source)
            call_line = ("scores = (score_fixed if args.fixed else score_wasteful)"
                         "(model, items, device)")
            assert source.count(call_line) == 1
            (tmp_path / "eval.py").write_text(
                source.replace(call_line, "scores = score_fixed(model, items, device)"))
            # 4. Verify: A B B A, outputs compared item by item.
            r, verified = await step(c, "ab", {
                # 256 items and 3 rounds: with 96 and 2 one stalled run of a
                # loaded machine (CI beside a 1 GB training run) took the point
                # estimate of four pairs from 3.3 to 1.4.
                "command_a": [PY, "eval_before.py", "--items", "256"],
                "command_b": [PY, "eval.py", "--items", "256"],
                "cwd": str(tmp_path), "rounds": 3, "trace": "none"})
            assert not r.is_error, verified
            b1 = next(x["run_dir"] for x in verified["figures"]["runs"] if x["run"] == "B1")
            # 5. Decide, on the fixed run, with the runs that remain.
            r, decided = await step(c, "decide", {"run_dir": b1, "runs": 20,
                                                  "cwd": str(tmp_path)})
            assert not r.is_error, decided
            return measured, verified, decided

    measured, verified, decided = anyio.run(scenario)
    text = json.dumps(transcript, indent=1, ensure_ascii=False)
    if os.environ.get("FASTENOUGH_MCP_TRANSCRIPT"):
        Path(os.environ["FASTENOUGH_MCP_TRANSCRIPT"]).write_text(text + "\n")
    assert measured["measurement"]["status"] == "complete"
    assert all(w["file"].endswith("eval.py") for f in measured["findings"] for w in f["where"]
               if "file" in w)
    assert verified["outputs"]["verdict"] in ("bitwise-equal", "within-tolerance"), verified
    assert verified["protocol_changes"], "batch 1 -> 8 is labelled a protocol change"
    # The fixed path is several times faster; the point estimate of B/A says so even
    # when a busy machine widens the interval.
    assert verified["ratio"] and verified["ratio"]["ratio"] > 1.5, verified["ratio"]
    assert decided["any_pays"] is False and Path(decided["freeze"]).is_file(), decided
    assert [t["call"] for t in transcript] == ["run", "explain", "ab", "decide"]
