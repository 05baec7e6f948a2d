"""Runs a small program under the fastenough agent the way `fastenough run` does:
FASTENOUGH_RUN_DIR, FASTENOUGH_AGENT_OPTS and the agent boot dir first on PYTHONPATH."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import fastenough

BOOT_DIR = Path(fastenough.__file__).resolve().parent / "agent" / "boot"


class RunResult:
    def __init__(self, proc: subprocess.CompletedProcess, run_dir: Path) -> None:
        self.proc = proc
        self.dir = run_dir

    def lines(self, name: str) -> list[dict]:
        path = self.dir / name
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

    @property
    def phases(self) -> list[dict]:
        return self.lines("phases.jsonl")

    @property
    def steps(self) -> list[dict]:
        return self.lines("steps.jsonl")

    def agent_files(self) -> list[dict]:
        d = self.dir / "agent"
        return [json.loads(p.read_text()) for p in sorted(d.glob("*.json"))] if d.exists() else []

    def main_agent(self) -> dict:
        found = [a for a in self.agent_files() if a["pid"] == self.proc_pid()]
        assert found, f"no agent json for the main process in {self.dir}"
        return found[0]

    def proc_pid(self) -> int:
        return int((self.dir.parent / "pid.txt").read_text())

    def auto_sequence(self) -> list[tuple[str, str]]:
        return [(p["phase"], p["edge"]) for p in self.phases if p["auto"]]


def run_under_agent(tmp_path: Path, source: str, opts: dict | None = None,
                    pythonpath: list[str] | None = None, run_dir: bool = True,
                    timeout: int = 300, launcher: list[str] | None = None) -> RunResult:
    rdir = tmp_path / "run"
    rdir.mkdir(exist_ok=True)
    prog = tmp_path / "prog.py"
    # Every program records its own pid so tests can tell the main process apart.
    pid_file = str(tmp_path / "pid.txt")
    prelude = ("import os as _os\nif __name__ == '__main__':\n"
               f"    open({pid_file!r}, 'w').write(str(_os.getpid()))\n")
    prog.write_text(prelude + textwrap.dedent(source))
    env = dict(os.environ)
    env.pop("FASTENOUGH_RUN_DIR", None)
    if run_dir:
        env["FASTENOUGH_RUN_DIR"] = str(rdir)
    env["FASTENOUGH_AGENT_OPTS"] = json.dumps(opts if opts is not None else {"trace": False})
    env["PYTHONPATH"] = os.pathsep.join(
        [str(BOOT_DIR), *(pythonpath or []), *filter(None, [env.get("PYTHONPATH")])])
    env["OMP_NUM_THREADS"] = "1"  # small models: threads only add noise on a shared machine
    proc = subprocess.run([sys.executable, *(launcher or []), str(prog)], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=timeout)
    return RunResult(proc, rdir)


def check_balanced(phases: list[dict]) -> None:
    """Every begin has its end; automatic edges are in time order."""
    open_: dict = {}
    last = 0
    for p in phases:
        if p["auto"]:
            assert p["mono_ns"] >= last, p
            last = p["mono_ns"]
        key = (p["pid"], p["phase"], p["auto"])
        if p["edge"] == "begin":
            open_[key] = open_.get(key, 0) + 1
            assert "memory" not in p
        else:
            assert open_.get(key, 0) > 0, f"end without begin: {p}"
            open_[key] -= 1
            mem = p["memory"]
            assert mem["device"] == "cpu"
            assert mem["rss_bytes"] > 10_000_000  # a process with torch loaded
            assert mem["allocated_bytes"] is None
    assert all(v == 0 for v in open_.values()), open_
