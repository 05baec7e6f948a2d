"""Fixtures of tests/real, imported by its test module (no conftest.py here:
tests/python imports its own `conftest` by name). Real programs run plain and
under `fastenough run`, side by side.

Each program runs twice, in two fresh working directories (its checkpoints and
other files land there): once plain, once as `fastenough run --quiet
--run-dir DIR -- <the same command>`. `--quiet` keeps fastenough's own lines
on stderr, so the two stdouts must be equal byte for byte."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from catalog import BY_NAME, Program  # noqa: E402

pytest.importorskip("torch")


@dataclass
class Pair:
    program: Program
    plain: subprocess.CompletedProcess
    tool: subprocess.CompletedProcess
    plain_dir: Path
    tool_dir: Path
    run_dir: Path

    @property
    def report(self) -> dict:
        return json.loads((self.run_dir / "report.json").read_text())

    def findings(self) -> list[dict]:
        return self.report["findings"]

    def codes(self) -> list[str]:
        return [f["code"] for f in self.findings()]

    def agents(self) -> list[dict]:
        return [json.loads(p.read_text()) for p in sorted((self.run_dir / "agent").glob("*.json"))]


def tool_command(program: Program, run_dir: Path) -> list[str]:
    """`fastenough run` around the program's command, supervised by the program's
    own interpreter (build/venv-vision's for the torchvision programs)."""
    return [program.interpreter(), "-m", "fastenough", "run", "--no-history", "--quiet",
            "--run-dir", str(run_dir), "--", *program.command()]


def run_program(program: Program, base: Path, timeout: float | None = None) -> Pair:
    missing = program.missing()
    if missing and program.python == "vision":
        pytest.skip(f"{program.name} needs {missing[0]}")
    if missing:
        pytest.skip(f"{program.name} needs {', '.join(missing)} (pip install them: see "
                    "scripts/setup.sh)")
    for attempt in range(3):
        pair = _run_pair(program, base / f"attempt{attempt}" if attempt else base, timeout)
        crash = _upstream_crash(program, pair)
        if crash is None:
            return pair
        print(f"{program.name}: {crash}; running the pair again")
    return pair


# torch 2.13's gloo process group at interpreter exit, after
# destroy_process_group(): a joinable std::thread destroyed (std::terminate,
# SIGABRT in one rank), in plain runs too (2 of 16 on a loaded machine here;
# CI hit it once in the corpus's DDP tutorial and once in ddp_gloo.py).
GLOO_TEARDOWN = r"terminate called without an active exception"


def _upstream_crash(program: Program, pair: Pair) -> str | None:
    """Why the pair says nothing about fastenough (None: it does). A plain run
    that fails has no fastenough in it, whatever its message (CI's plain DDP
    tutorial died with SIGABRT and no "terminate called" line on stderr); a
    tool run only for a crash the plain runs are known to have too."""
    if pair.plain.returncode != 0:
        return f"the plain run failed (exit {pair.plain.returncode}), without fastenough"
    if pair.tool.returncode == 0:
        return None
    patterns = program.upstream_crashes + ((GLOO_TEARDOWN,) if program.torchrun else ())
    for pattern in patterns:
        m = re.search(pattern, pair.tool.stderr)
        if m:
            return f"torch's own crash ({m.group(0)!r}) in the tool run"
    return None


def _run_pair(program: Program, base: Path, timeout: float | None) -> Pair:
    timeout = timeout or program.timeout
    env = dict(os.environ, **program.env)
    env.pop("FASTENOUGH_RUN_DIR", None)
    plain_dir, tool_dir = base / "plain", base / "tool"
    plain_dir.mkdir(parents=True)
    tool_dir.mkdir()
    run_dir = base / "run"
    if program.setup:
        program.setup(plain_dir)
        program.setup(tool_dir)
    plain = subprocess.run(program.command(), cwd=plain_dir, env=env, capture_output=True,
                           text=True, timeout=timeout)
    tool = subprocess.run(tool_command(program, run_dir), cwd=tool_dir, env=env,
                          capture_output=True, text=True, timeout=timeout)
    return Pair(program, plain, tool, plain_dir, tool_dir, run_dir)


@pytest.fixture(scope="module")
def pairs(tmp_path_factory):
    """Runs each program once per test module, on first use."""
    done: dict[str, Pair] = {}

    def get(name: str) -> Pair:
        if name not in done:
            done[name] = run_program(BY_NAME[name], tmp_path_factory.mktemp(name))
        return done[name]

    return get
