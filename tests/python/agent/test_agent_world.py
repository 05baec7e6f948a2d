"""What a program sees of the agent: as little as can be. Each probe runs the
same program plain and under `fastenough run` and compares what it prints.

- Another interpreter run under the tool (the system's python3) no longer
  imports torch, numpy or rich from fastenough's environment: the agent is
  loaded from its own directory without putting that directory on sys.path.
- `import sitecustomize` gives the program's own module (or fails, as plain),
  and sys.path is the plain one.
- Kept, and justified here: the warnings filter (it hides only the warning our
  own global module hooks cause, so `-W error` programs run as plain) and the
  SIGTERM handler (it writes the measurement before dying of the signal, and
  gives way to any handler the program installs)."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from fastenough.supervisor.spawn import boot_dir, child_env

needs_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is None,
                                 reason="needs torch")

def _foreign_interpreter() -> str | None:
    """A Python that does not have fastenough (nor this environment's torch,
    numpy, rich): the system's python3, or the one this venv was made from."""
    for candidate in ("/usr/bin/python3", getattr(sys, "_base_executable", None)):
        if candidate and os.path.exists(candidate) and subprocess.run(
                [candidate, "-c", "import fastenough"], capture_output=True,
                env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"}).returncode:
            return candidate
    return None


FOREIGN = _foreign_interpreter()

def _plain(argv: list[str], cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})})


def _under_tool(argv: list[str], cwd: Path, env: dict | None = None
                ) -> subprocess.CompletedProcess:
    return _plain([sys.executable, "-m", "fastenough", "run", "--no-trace", "--no-history",
                   "--", *argv], cwd, env)


@pytest.mark.skipif(FOREIGN is None, reason="no Python without fastenough on this machine")
def test_another_interpreter_does_not_see_the_tools_packages(tmp_path):
    # fastenough installed the way a wheel installs it: the package beside
    # other packages (here a stand-in, `leaky_probe`) in one site-packages.
    site = tmp_path / "site-packages"
    site.mkdir()
    (site / "fastenough").symlink_to(boot_dir().parents[1], target_is_directory=True)
    (site / "leaky_probe.py").write_text("")
    run_dir = tmp_path / "run"
    (run_dir / "agent").mkdir(parents=True)
    env = child_env({k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, run_dir, {},
                    site / "fastenough" / "agent" / "boot")
    env.pop("VIRTUAL_ENV", None)
    prog = ("import importlib.util, sys\n"
            "print('leaky_probe', importlib.util.find_spec('leaky_probe') is not None)\n"
            "print('agent', 'fastenough.agent.bootstrap' in sys.modules)\n")
    r = subprocess.run([FOREIGN, "-c", prog], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert "leaky_probe False" in r.stdout, r.stdout  # True: the whole site-packages leaked
    assert "agent True" in r.stdout, (r.stdout, r.stderr)  # the agent still started


SHOW_SITECUSTOMIZE = textwrap.dedent("""
    import sys
    try:
        import sitecustomize
        print("sitecustomize", sitecustomize.__file__)
    except ImportError as e:
        print("sitecustomize", type(e).__name__)
    print("path", sys.path[1:])
""")


@pytest.mark.parametrize("own", [False, True])
def test_sitecustomize_and_sys_path_are_the_programs(tmp_path, own):
    prog = tmp_path / "show.py"
    prog.write_text(SHOW_SITECUSTOMIZE)
    env = {}
    if own:
        mine = tmp_path / "mine"
        mine.mkdir()
        (mine / "sitecustomize.py").write_text("import builtins\nbuiltins.MINE = 1\n")
        env["PYTHONPATH"] = str(mine)
    plain = _plain([sys.executable, str(prog)], tmp_path, env)
    tool = _under_tool([sys.executable, str(prog)], tmp_path, env)
    assert plain.returncode == tool.returncode == 0, tool.stderr
    assert tool.stdout == plain.stdout  # was fastenough's boot sitecustomize, and its dir


@needs_torch
def test_minus_w_error_programs_run_as_plain(tmp_path):
    # The agent's global module hooks make torch warn on every call of a
    # compiled module; the agent's one warnings filter hides that warning (and
    # nothing else), so a program that turns warnings into errors on the
    # command line runs as it does plain.
    prog = tmp_path / "compiled.py"
    prog.write_text(textwrap.dedent("""
        import torch
        m = torch.compile(torch.nn.Linear(4, 4), backend="eager")
        print("out", tuple(m(torch.ones(2, 4)).shape))
    """))
    argv = [sys.executable, "-W", "error", str(prog)]
    plain, tool = _plain(argv, tmp_path), _under_tool(argv, tmp_path)
    assert plain.returncode == tool.returncode == 0, tool.stderr
    assert tool.stdout == plain.stdout
    # The filter is narrow: the program's own warnings still become errors.
    own = tmp_path / "own.py"
    own.write_text("import torch, warnings\nwarnings.warn('mine')\n")
    argv = [sys.executable, "-W", "error", str(own)]
    plain, tool = _plain(argv, tmp_path), _under_tool(argv, tmp_path)
    assert plain.returncode == tool.returncode == 1
    assert "UserWarning: mine" in plain.stderr and "UserWarning: mine" in tool.stderr


@needs_torch
def test_the_programs_sigterm_handler_wins(tmp_path):
    # The agent's SIGTERM handler (it writes the measurement, then dies of the
    # signal as without it) is installed only over the default, and any handler
    # the program installs later replaces it: the program ends its own way.
    prog = tmp_path / "term.py"
    prog.write_text(textwrap.dedent("""
        import os, signal, sys, torch
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(3))
        os.kill(os.getpid(), signal.SIGTERM)
        while True:
            pass
    """))
    argv = [sys.executable, str(prog)]
    plain, tool = _plain(argv, tmp_path), _under_tool(argv, tmp_path)
    assert plain.returncode == tool.returncode == 3, tool.stderr
    bare = tmp_path / "bare.py"
    bare.write_text("import os, signal, torch\nos.kill(os.getpid(), signal.SIGTERM)\n"
                    "while True:\n    pass\n")
    argv = [sys.executable, str(bare)]
    plain, tool = _plain(argv, tmp_path), _under_tool(argv, tmp_path)
    assert plain.returncode == -signal.SIGTERM and tool.returncode == 128 + signal.SIGTERM
    run = sorted((tmp_path / ".fastenough" / "runs").iterdir())[-1]
    assert (run / "phases.jsonl").exists()  # what the handler is for: written before dying


def test_boot_dir_is_not_left_on_sys_path_of_children(tmp_path):
    # A subprocess of the program still gets the agent (PYTHONPATH carries the
    # boot directory), and it too sees the plain sys.path.
    prog = tmp_path / "parent.py"
    prog.write_text(textwrap.dedent(f"""
        import subprocess, sys
        out = subprocess.run([sys.executable, "-c", "import sys; print(sys.path[1:])"],
                             capture_output=True, text=True).stdout
        print(out.strip())
        print({str(boot_dir())!r} in out)
    """))
    tool = _under_tool([sys.executable, str(prog)], tmp_path)
    assert tool.returncode == 0, tool.stderr
    assert tool.stdout.strip().endswith("False"), tool.stdout
    assert Path(boot_dir()).exists()
