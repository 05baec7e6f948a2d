"""The set-up and test commands (issue 36): everything goes into the project's
own virtual environment, never the system's Python; torch is pinned in every
pip line; the demo's set-up installs what the demo needs and nothing of the
test corpus; a Python without its venv module gets a message naming the
Debian package."""

from __future__ import annotations

import os
import re
import subprocess

from conftest import REPO

SCRIPTS = [REPO / "scripts" / n for n in ("setup.sh", "test.sh", "demo.sh", "check_wheel.sh",
                                         "sanitize.sh")] + [REPO / ".ci" / "run"]


def _pip_lines() -> list[tuple[str, str]]:
    out = []
    for path in SCRIPTS:
        text = path.read_text().replace("\\\n", " ")
        out += [(path.name, ln.strip()) for ln in text.splitlines()
                if re.search(r"-m pip install|(^|[;&|(]\s*)pip3? install", ln.strip())
                and not ln.lstrip().startswith("#")]
    return out


def test_every_pip_install_goes_through_a_virtual_environment():
    lines = _pip_lines()
    assert lines
    for name, line in lines:
        # "$PY" is .venv's python (FASTENOUGH_VENV), "$VPY" build/venv-vision's,
        # "$venv_py" check_wheel's fresh venv.
        calls = re.findall(r'(\S+) -m pip install|(?:^|[;&|(]\s*)(pip3?) install', line)
        assert calls and all(c[0] in ('"$PY"', '"$VPY"', '"$venv_py"') for c in calls), \
            (name, line)
    for name in ("setup.sh", "test.sh", "check_wheel.sh"):
        text = (REPO / "scripts" / name).read_text()
        assert re.search(r"^PY=\$\{?(FASTENOUGH_VENV|VENV)", text, re.M) or \
            re.search(r"^PY=\$VENV/bin/python$", text, re.M), name
    assert 'exec "${FASTENOUGH_VENV:-.venv}/bin/python" -m fastenough demo' in \
        (REPO / "scripts" / "demo.sh").read_text()


def test_torch_is_pinned_wherever_it_is_installed():
    text = "\n".join(p.read_text() for p in SCRIPTS)
    for m in re.finditer(r'"torch(?![a-z_])[^"]*"', text):
        assert re.fullmatch(r'"torch==\d+\.\d+\.\d+"', m.group(0)), m.group(0)


def test_the_demo_installs_nothing_of_the_tests():
    text = (REPO / "scripts" / "setup.sh").read_text()
    m = re.search(r"^PACKAGES=\((.*?)\)$", text, re.M | re.S)
    assert m, "setup.sh: no PACKAGES=(...)"
    names = {re.split(r"[<>=]", p.strip('"'))[0] for p in m.group(1).split()}
    assert names == {"scikit-build-core", "nanobind", "rich", "torch", "numpy"}, names


def test_a_python_without_venv_is_told_which_package_to_install(tmp_path):
    fake = tmp_path / "python3"
    fake.write_text('#!/bin/sh\n'
                    'case "$*" in\n'
                    '  *"-m venv"*) echo "The virtual environment was not created successfully '
                    'because ensurepip is not available." ; exit 1 ;;\n'
                    '  *) echo 3.11 ;;\n'
                    'esac\n')
    fake.chmod(0o755)
    venv = tmp_path / "venv"
    env = {**os.environ, "PYTHON": str(fake), "FASTENOUGH_VENV": str(venv)}
    r = subprocess.run(["bash", str(REPO / "scripts" / "setup.sh")], env=env,
                       capture_output=True, text=True, timeout=300)
    if "missing Debian packages" in r.stderr:
        import pytest

        pytest.skip("the set-up's Debian packages are not installed here: " + r.stderr.strip())
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert "python3.11-venv" in r.stderr and "ensurepip is not available" in r.stderr, r.stderr
    assert not venv.exists()
