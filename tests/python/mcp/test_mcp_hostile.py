"""`fastenough mcp` against a hostile or careless agent: every argument is data.

- Every string argument of every tool, set to option-like values ("-x", "--help",
  "--annotate=FILE", ...), is taken as data: nothing is written where such an
  option would write, the verb's help is never what comes back, and the read-only
  tools leave the user's tree as it was (their files go to the scratch directory).
- The annotations say what the tools do: run and ab execute a command (destructive,
  open world), the read-only tools are read-only and write nothing under cwd.
- Every JSON-RPC message gets an answer (wire.Gate): batches, array params, null
  ids, lone surrogates, truncated JSON, bytes that are not UTF-8, a 50 MB line
  (answered without the server holding it), with a seeded fuzz of the line check.
- The verbs die with the server (SIGTERM and SIGKILL): no program left running.
- A damaged trace is a report with its exit meaning, not a bug; an oversized
  argument is bad input, not a crash.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("mcp.server.mcpserver", reason="fastenough mcp needs the `mcp` package "
                    "(pip install 'fastenough[agent]'; scripts/setup.sh installs it)")

import anyio  # noqa: E402 - after the skip: anyio comes with mcp

from fastenough.mcp import arguments, tools, wire  # noqa: E402
from fastenough.mcp.calls import ToolFailure  # noqa: E402

PY = sys.executable
DATA = Path(__file__).resolve().parents[2] / "data"
TRACE = DATA / "traces" / "kineto_minimal.json"


def _tree(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under root with its size and mtime: what a read-only tool must keep."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            st = p.lstat()
            out[str(p.relative_to(root))] = (st.st_size, st.st_mtime_ns)
    return out


def _npy_float32(values: list[float]) -> bytes:
    """A .npy file of float32 values, written by hand (format 1.0)."""
    import struct

    header = f"{{'descr': '<f4', 'fortran_order': False, 'shape': ({len(values)},), }}"
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    return (b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode()
            + struct.pack(f"<{len(values)}f", *values))


@pytest.fixture
def world(tmp_path, monkeypatch):
    """A working directory with a trace, a run directory and outputs; a victim file and
    directory elsewhere that option-like arguments try to reach; a private scratch."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "t.json").write_bytes(TRACE.read_bytes())
    run = work / "run1"
    run.mkdir()
    report = json.loads(subprocess.run(
        [PY, "-m", "fastenough", "analyze", "--json", "--no-progress", "--", str(work / "t.json")],
        capture_output=True, check=False).stdout)
    (run / "report.json").write_text(json.dumps(report))
    (run / "outputs").mkdir()
    (run / "outputs" / "scores.npy").write_bytes(_npy_float32([1.0, 2.0, 3.0]))
    (work / "code.py").write_text("import torch\n\ndef f(m, x):\n    return m(x)\n")
    (work / "peaks.json").write_text('{"devices": [{"name": "NVIDIA H100 SXM5 80GB", '
                                     '"tflops": {"bf16": 900}}]}')
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "bashrc").write_text("keep me\n")
    scratch = tmp_path / "scratch"
    monkeypatch.setenv("FASTENOUGH_MCP_SCRATCH", str(scratch))
    return {"work": work, "run": run, "victim": victim, "scratch": scratch}


def _hostile(victim: Path) -> list[str]:
    target = str(victim / "bashrc")
    return ["-x", "--help", "-h", f"--annotate={target}", "--annotate", f"-o{target}",
            f"--output={target}", f"--rank-summaries={victim}", "--dask=tcp://127.0.0.1:9",
            f"--dir={victim / 'abdir'}", f"--plan={target}", "--reopen", "--", "--version",
            "--format=sarif", "--select=autograd-in-eval", "--json"]


def _call(fn, **kwargs):
    async def go():
        if fn is tools.explain:
            return fn(**kwargs)
        return await fn(**kwargs)

    try:
        return "answer", anyio.run(go)
    except ToolFailure as e:
        return e.kind, e


def _valid_args(w: dict) -> dict[str, dict]:
    work = str(w["work"])
    return {
        "analyze": {"paths": ["t.json"], "cwd": work, "device": "H100 SXM",
                    "peaks": "peaks.json"},
        "report": {"path": "run1", "cwd": work, "detail": "compact"},
        "compare": {"a": "run1", "b": "run1", "cwd": work},
        "diff": {"a": "run1", "b": "run1", "cwd": work, "device": "H100 SXM",
                 "peaks": "peaks.json"},
        "decide": {"run_dir": "run1", "runs": 3, "cwd": work},
        "lint": {"paths": ["code.py"], "cwd": work, "ignore": ["sync-in-loop"]},
        "replay": {"path": "t.json", "cwd": work, "op": "mm"},
        "explain": {"code": "sync-in-loop"},
    }


READ_ONLY = {"analyze", "report", "compare", "diff", "lint", "replay", "explain"}


def test_every_string_argument_of_every_tool_is_data_never_an_option(world):
    """Each tool, each of its string arguments (alone and as list items) set to each
    option-like value: no victim touched, no help text, read-only tools write nothing
    under cwd, and the outcome is an answer or a typed error, never a bug."""
    w = world
    before_victim = _tree(w["victim"])
    outcomes = []
    for name, valid in _valid_args(w).items():
        fn = getattr(tools, name)
        for arg, value in valid.items():
            if not isinstance(value, (str, list)) or arg == "cwd" and name == "explain":
                continue
            for bad in _hostile(w["victim"]):
                args = dict(valid)
                args[arg] = [bad] if isinstance(value, list) else bad
                before = _tree(w["work"])
                kind, result = _call(fn, **args)
                outcomes.append((name, arg, bad, kind))
                assert kind in ("answer", "bad-input"), (name, arg, bad, kind,
                                                         getattr(result, "message", result))
                text = json.dumps(result if kind == "answer" else result.error())
                assert "usage: fastenough" not in text, (name, arg, bad)
                if name in READ_ONLY:
                    assert _tree(w["work"]) == before, (name, arg, bad)
                assert _tree(w["victim"]) == before_victim, (name, arg, bad)
                assert not (w["victim"] / "abdir").exists()
    # The hostile path was looked for as a file (and not found): data, not an option.
    assert ("analyze", "paths", "--help", "bad-input") in outcomes
    # The reported attack: an option and its value as two paths, then a real trace.
    kind, e = _call(tools.analyze, paths=["--annotate", str(w["victim"] / "bashrc"), "t.json"],
                    cwd=str(w["work"]))
    assert kind == "bad-input" and "--annotate" in e.message
    assert (w["victim"] / "bashrc").read_text() == "keep me\n"
    # select/ignore take only the catalog's codes.
    kind, e = _call(tools.lint, paths=["code.py"], cwd=str(w["work"]), select=["--help"])
    assert kind == "bad-input" and "unknown code" in e.message
    # decide writes freeze.json only into a run directory.
    kind, e = _call(tools.decide, run_dir=str(w["victim"]), runs=3, cwd=str(w["work"]))
    assert kind == "bad-input" and "not a run directory" in e.message
    assert _tree(w["victim"]) == before_victim


# String arguments the loop above leaves out, each with where its hostile values are
# tried instead: the commands of run and ab (data after `--`, test_a_commands_own_...),
# their environments and ab's `trace` (test_numbers_and_names_are_checked_...), decide's
# fixes (objects, checked field by field), lint's select (the loop's ignore shares it).
STRINGS_TRIED_ELSEWHERE = {
    ("run", "command"), ("run", "env"), ("ab", "command_a"), ("ab", "command_b"),
    ("ab", "env"), ("ab", "env_a"), ("ab", "env_b"), ("ab", "trace"),
    ("decide", "fixes"), ("lint", "select"),
}
SERVED = ("run", "ab", "analyze", "report", "compare", "diff", "decide", "lint", "replay",
          "explain")


def test_the_hostile_loop_covers_every_string_argument_of_every_tool(world):
    """A tool that gains a string argument (an option derived from the CLI's parser, say)
    is in the option-like loop above, or is named with where it is tried: a new argument
    cannot arrive untested as data."""
    import inspect

    valid = _valid_args(world)
    missing = []
    for name in SERVED:
        for arg, param in inspect.signature(getattr(tools, name)).parameters.items():
            text = str(param.annotation)
            if arg in ("cwd", "progress") or not any(t in text for t in ("str", "dict")):
                continue
            if arg not in valid.get(name, {}) and (name, arg) not in STRINGS_TRIED_ELSEWHERE:
                missing.append(f"{name}.{arg}")
    assert not missing, f"string arguments no hostile test tries: {missing}"
    kind, e = _call(tools.ab, command_a=[PY, "-c", "pass"], command_b=[PY, "-c", "pass"],
                    cwd=str(world["work"]), rounds=1, trace="--help")
    assert kind == "bad-input" and "trace must be" in e.message
    kind, e = _call(tools.decide, run_dir="run1", runs=3, cwd=str(world["work"]),
                    fixes=[{"code": "--help", "dev_hours": 1, "verify_hours": 1,
                            "maint_hours": 1}])
    assert kind in ("bad-input", "answer"), kind
    assert _tree(world["victim"]) == {"bashrc": _tree(world["victim"])["bashrc"]}


def test_every_string_argument_of_every_tool_may_be_oversized(world):
    """Each tool, each string argument (alone and as a list item) 200 KB and 3 MB long:
    a typed error or an answer, at once, never a bug; nothing written under cwd by the
    read-only tools."""
    w = world
    for size in (200 * 1024, 3 << 20):
        big = "x" * size
        for name, valid in _valid_args(w).items():
            fn = getattr(tools, name)
            for arg, value in valid.items():
                if not isinstance(value, (str, list)):
                    continue
                args = dict(valid)
                args[arg] = [big] if isinstance(value, list) else big
                before = _tree(w["work"])
                kind, result = _call(fn, **args)
                assert kind in ("answer", "bad-input"), (name, arg, size, kind)
                if name in READ_ONLY:
                    assert _tree(w["work"]) == before, (name, arg, size)
    for fn, args in ((tools.run, {"command": [PY, "-c", "pass"], "env": {"BIG": "x" * (3 << 20)}}),
                     (tools.ab, {"command_a": [PY, "y" * (3 << 20)], "command_b": [PY]}),
                     (tools.run, {"command": [PY] + ["z"] * 5000})):
        kind, e = _call(fn, cwd=str(w["work"]), **args)
        assert kind == "bad-input", (fn.__name__, kind)
    assert not (w["work"] / ".fastenough" / "runs").exists()


def test_a_file_named_like_an_option_is_read_as_that_file(world):
    """A trace really called "--annotate" is analysed as a trace."""
    w = world
    (w["work"] / "--annotate").write_bytes(TRACE.read_bytes())
    kind, answer = _call(tools.analyze, paths=["--annotate"], cwd=str(w["work"]))
    assert kind == "answer", answer
    assert answer["exit"]["code"] in (0, 1)
    assert (w["work"] / "--annotate").read_bytes() == TRACE.read_bytes()


def test_numbers_and_names_are_checked_against_what_the_verb_accepts(world):
    w = world
    work = str(w["work"])
    cases = [
        (tools.decide, {"run_dir": "run1", "runs": 10**30, "cwd": work}),
        (tools.decide, {"run_dir": "run1", "runs": 3, "cwd": work, "wait_value": float("nan")}),
        (tools.decide, {"run_dir": "run1", "runs": 3, "cwd": work,
                        "fixes": [{"code": "--help", "dev_hours": 1}]}),
        (tools.decide, {"run_dir": "run1", "runs": 3, "cwd": work,
                        "fixes": [{"code": "sync-in-loop", "dev_hours": float("inf")}]}),
        (tools.compare, {"a": "run1", "b": "run1", "cwd": work, "atol": float("nan")}),
        (tools.compare, {"a": "run1", "b": "run1", "cwd": work, "atol": 10**400}),
        (tools.diff, {"a": "run1", "b": "run1", "cwd": work, "min_change": float("-inf")}),
        (tools.analyze, {"paths": ["t.json"], "cwd": work, "timeout_s": float("nan")}),
        (tools.analyze, {"paths": ["t.json"], "cwd": work, "top": True}),
        (tools.run, {"command": ["-x"], "cwd": work}),
        (tools.run, {"command": ["--help"], "cwd": work}),
        (tools.run, {"command": [PY], "cwd": work, "env": {"-x": "1"}}),
        (tools.run, {"command": [PY], "cwd": work, "env": {"A=B": "1"}}),
        (tools.run, {"command": [PY, "x" * (3 << 20)], "cwd": work}),
        (tools.run, {"command": [PY], "cwd": "--help"}),
        (tools.ab, {"command_a": ["--dir=/tmp/x"], "command_b": [PY], "cwd": work}),
        (tools.ab, {"command_a": [PY], "command_b": [PY], "cwd": work, "confidence": 1.5}),
        (tools.ab, {"command_a": [PY], "command_b": [PY], "cwd": work,
                    "env_a": {"--help": "1"}}),
    ]
    for fn, args in cases:
        kind, e = _call(fn, **args)
        assert kind == "bad-input", (fn.__name__, args if len(str(args)) < 300 else "...", kind)
        assert e.exit_code == 2
    # Nothing ran: no run directory was made.
    assert not (w["work"] / ".fastenough" / "runs").exists()


def test_a_commands_own_arguments_reach_it_unchanged(world):
    """Option-like arguments after the program's name are the program's: run passes them
    (after `--`), and the tool's own options are untouched."""
    w = world
    prog = ("import json, sys\n"
            "open('argv.json', 'w').write(json.dumps(sys.argv[1:]))\n")
    (w["work"] / "show.py").write_text(prog)
    hostile = _hostile(w["victim"])
    kind, answer = _call(tools.run, command=[PY, "show.py", *hostile], cwd=str(w["work"]),
                         trace=False, require_complete=False)
    assert kind == "answer", getattr(answer, "message", answer)
    assert json.loads((w["work"] / "argv.json").read_text()) == hostile
    assert _tree(w["victim"]) == {"bashrc": _tree(w["victim"])["bashrc"]}
    assert (w["victim"] / "bashrc").read_text() == "keep me\n"


def test_read_only_tools_write_only_to_the_scratch_directory(world):
    w = world
    before = _tree(w["work"])
    for name, args in _valid_args(w).items():
        if name in READ_ONLY:
            kind, answer = _call(getattr(tools, name), **args)
            assert kind == "answer", (name, getattr(answer, "message", answer))
            for f in (answer.get("files") or {}).values():
                if isinstance(f, str) and name not in ("report",):
                    assert Path(f).is_relative_to(w["scratch"]) or \
                        Path(f).is_relative_to(w["work"] / "t.json"), (name, f)
    assert _tree(w["work"]) == before
    assert any(w["scratch"].iterdir())
    assert (w["scratch"].stat().st_mode & 0o777) == 0o700


def test_a_truncated_trace_is_a_report_that_says_it_lost_data(world):
    """analyze's exit 5 (the report of what could be read) is an answer, not a bug."""
    w = world
    data = gzip.compress(TRACE.read_bytes())
    (w["work"] / "cut.json.gz").write_bytes(data[: len(data) * 2 // 3])
    kind, answer = _call(tools.analyze, paths=["cut.json.gz"], cwd=str(w["work"]))
    if kind == "answer":
        assert answer["exit"]["code"] in (1, 5), answer["exit"]
        assert "lost data" in answer["exit"]["meaning"] or answer["exit"]["code"] == 1
    else:
        assert kind == "bad-input", answer.error()


def test_argument_checks_by_hand():
    assert arguments.as_path("-x", "p") == "./-x"
    assert arguments.as_path("/abs/-x", "p") == "/abs/-x"
    assert arguments.args_after(["analyze", "--json"], ["-x"]) == ["analyze", "--json", "--",
                                                                    "-x"]
    with pytest.raises(ToolFailure):
        arguments.as_path("a\0b", "p")
    with pytest.raises(ToolFailure):
        arguments.as_path("\ud800", "p")
    with pytest.raises(ToolFailure):
        arguments.number(float("nan"), "x")
    with pytest.raises(ToolFailure):
        arguments.integer(True, "x", 0, 10)
    assert arguments.env({"OMP_NUM_THREADS": "--help"}) == {"OMP_NUM_THREADS": "--help"}


def test_annotations_say_what_the_tools_do():
    from fastenough.cli.main import build_parser
    from fastenough.mcp.options import verb_parsers
    from fastenough.mcp.server import build_server

    server = build_server(verb_parsers(build_parser()))

    async def listed():
        return await server.list_tools()

    by_name = {t.name: t for t in anyio.run(listed)}
    for name in ("run", "ab"):
        a = by_name[name].annotations
        assert a.read_only_hint is False and a.destructive_hint is True
        assert a.open_world_hint is True and a.idempotent_hint is False
        assert "user's rights" in by_name[name].description
        assert "without a sandbox" in by_name[name].description
    assert by_name["decide"].annotations.read_only_hint is False
    assert by_name["decide"].annotations.destructive_hint is False
    for name in READ_ONLY:
        assert by_name[name].annotations.read_only_hint is True, name
        assert by_name[name].annotations.destructive_hint is False, name
    docs = " ".join((Path(__file__).resolve().parents[3] / "docs" / "agents.md").read_text()
                    .split())
    assert "user's rights" in docs and "without a sandbox" in docs


# ------------------------------------------------------------------ the wire

def _initialize() -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "hostile", "version": "1"}}}).encode()


class _Server:
    def __init__(self, env: dict | None = None):
        e = dict(os.environ)
        e.pop("FASTENOUGH_RUN_DIR", None)
        e.update(env or {})
        self.p = subprocess.Popen([PY, "-m", "fastenough", "mcp"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e)
        self.send(_initialize())
        assert "result" in self.recv()
        self.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')

    def send(self, line: bytes) -> None:
        self.p.stdin.write(line + b"\n")
        self.p.stdin.flush()

    def recv(self, timeout: float = 60) -> dict:
        import selectors

        sel = selectors.DefaultSelector()
        sel.register(self.p.stdout, selectors.EVENT_READ)
        assert sel.select(timeout), "the server gave no answer"
        return json.loads(self.p.stdout.readline())

    def close(self) -> None:
        if self.p.poll() is None:
            self.p.stdin.close()
            try:
                self.p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.p.kill()


def test_every_message_gets_an_answer_and_a_huge_one_is_never_held():
    s = _Server()
    try:
        cases = [
            (b'{"jsonrpc":"2.0","id":2,"method":"tools/list","params":[1]}', 2, -32602),
            (b'[{"jsonrpc":"2.0","id":3,"method":"tools/list"}]', None, -32600),
            (b'{"jsonrpc":"2.0","id":null,"method":"tools/list"}', None, -32600),
            (b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"explain",'
             b'"arguments":{"code":"\\ud800"}}}', 4, -32600),
            (b'{"jsonrpc":"2.0","id":5,"method":"tools/li', 5, -32700),
            (b'\xff\xfe{}', None, -32700),
            (b'{"jsonrpc":"1.0","id":6,"method":"tools/list"}', 6, -32600),
            (b'{"jsonrpc":"2.0","id":7.5,"method":"tools/list"}', None, -32600),
            (b'{"jsonrpc":"2.0","id":8,"method":9}', 8, -32600),
            (b'"just a string"', None, -32600),
            (b"[" * 100000 + b"]" * 100000, None, None),
            (b'{"jsonrpc":"2.0","id":"q","method":"no/such"}', "q", -32601),
        ]
        for line, id_, code in cases:
            s.send(line)
            r = s.recv()
            assert r.get("id") == id_, (line[:60], r)
            assert "error" in r, (line[:60], r)
            if code is not None:
                assert r["error"]["code"] == code, (line[:60], r)
        # 50 MB in one line: answered with its id, and the server's memory stays small.
        big = (b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"explain",'
               b'"arguments":{"code":"' + b"a" * (50 << 20) + b'"}}}')
        s.send(big)
        r = s.recv()
        assert r["id"] == 9 and r["error"]["code"] == -32700 and "longer than" in \
            r["error"]["message"]
        status = Path(f"/proc/{s.p.pid}/status").read_text()
        hwm_kib = int(next(ln for ln in status.splitlines() if ln.startswith("VmHWM")).split()[1])
        assert hwm_kib < 400 * 1024, f"peak RSS {hwm_kib} KiB after a 50 MB line"
        # And it still serves.
        s.send(b'{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"explain",'
               b'"arguments":{"code":"sync-in-loop"}}}')
        r = s.recv()
        assert r["id"] == 10 and "result" in r and not r["result"].get("isError")
    finally:
        s.close()
    assert s.p.returncode == 0


def test_the_line_check_never_fails_on_fuzzed_messages():
    """A seeded fuzz of wire.check_line: mutations of real requests (bytes flipped,
    cut, repeated, spliced) always give a pass the SDK accepts or an error response of
    the JSON-RPC shape, never an exception."""
    import mcp_types

    seeds = [_initialize(),
             b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run",'
             b'"arguments":{"command":["python","x.py"],"cwd":"/tmp"}}}',
             b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}',
             b'{"jsonrpc":"2.0","id":"a","result":{}}']
    alphabet = b'{}[]",:\\0123456789-.eE truefalsn\xff\xc3\xa9\x00\n'
    rng = random.Random(20261206)
    passed = answered = 0
    for _ in range(20000):
        data = bytearray(rng.choice(seeds))
        for _ in range(rng.randint(1, 6)):
            op = rng.randrange(4)
            i = rng.randrange(len(data) + 1)
            if op == 0 and data:
                data[min(i, len(data) - 1)] = rng.choice(alphabet)
            elif op == 1:
                del data[i:i + rng.randint(1, 20)]
            elif op == 2:
                data[i:i] = bytes(rng.choice(alphabet) for _ in range(rng.randint(1, 8)))
            else:
                data[i:i] = rng.choice(seeds)[: rng.randint(0, 40)]
        response, text = wire.check_line(bytes(data))
        if text is not None:
            mcp_types.jsonrpc_message_adapter.validate_json(text, by_name=False)
            passed += 1
        elif response is not None:
            answered += 1
            assert response["jsonrpc"] == "2.0" and set(response) == {"jsonrpc", "id", "error"}
            assert response["id"] is None or isinstance(response["id"], (int, str))
            json.dumps(response, allow_nan=False).encode("utf-8")
    assert passed > 100 and answered > 1000, (passed, answered)


def test_the_id_of_a_message_cut_short_is_read_from_its_top_level_only():
    assert wire.id_from_prefix(b'{"jsonrpc":"2.0","id":12,"meth') == 12
    assert wire.id_from_prefix(b'{"id":"x\\"y","params":{') == 'x"y'
    assert wire.id_from_prefix(b'{"params":{"id":5},"id":') is None
    assert wire.id_from_prefix(b'{"params":{"id":5}') is None
    assert wire.id_from_prefix(b'{"id":null') is None
    assert wire.id_from_prefix(b'{"id":true,') is None


# ------------------------------------------------------------------ the server's end

SLOW = """\
import os, sys, time
open(sys.argv[1], "w").write(str(os.getpid()))
while True:
    time.sleep(0.05)
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_the_program_of_a_run_dies_with_the_server(tmp_path, sig):
    (tmp_path / "slow.py").write_text(SLOW)
    s = _Server({"FASTENOUGH_MCP_SCRATCH": str(tmp_path / "scratch")})
    try:
        s.send(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "run", "arguments": {"command": [PY, "slow.py", "prog.pid"],
                                         "cwd": str(tmp_path), "trace": False}}}).encode())
        deadline = time.monotonic() + 120
        while not (tmp_path / "prog.pid").is_file() and time.monotonic() < deadline:
            time.sleep(0.1)
        pid = int((tmp_path / "prog.pid").read_text())
        assert _alive(pid)
        s.p.send_signal(sig)
        s.p.wait(timeout=90)
        deadline = time.monotonic() + 60
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(pid), f"the program outlived the server killed by {sig!r}"
        # fastenough run stopped it as Ctrl-C does: the report of what was measured.
        runs = list((tmp_path / ".fastenough" / "runs").iterdir())
        assert len(runs) == 1
        deadline = time.monotonic() + 60
        while not (runs[0] / "report.json").is_file() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert (runs[0] / "report.json").is_file()
    finally:
        if s.p.poll() is None:
            s.p.kill()


def test_a_fifo_where_a_report_should_be_never_blocks_the_server(tmp_path):
    """A program that leaves a FIFO at its run directory's report.json: `report` answers
    bad-input at once instead of waiting for a writer that never comes."""
    from fastenough.mcp.calls import read_json

    run = tmp_path / "run1"
    run.mkdir()
    os.mkfifo(run / "report.json")
    t0 = time.monotonic()
    assert read_json(run / "report.json") is None
    assert time.monotonic() - t0 < 5
