"""Every subcommand's --help renders (argparse %-formats help strings: a stray
'%' in one of them crashed `fastenough --help` once) and teaches by example."""

from __future__ import annotations

import pytest
from conftest import run_cli

from fastenough.cli.main import SUBCOMMANDS


def test_main_help_lists_every_subcommand():
    r = run_cli("--help")
    assert r.returncode == 0, r.stderr
    for name in SUBCOMMANDS:
        assert f"    {name} " in r.stdout or f"    {name}\n" in r.stdout, name


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_subcommand_help(name):
    r = run_cli(name, "--help")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("usage: fastenough " + name)
    assert "Traceback" not in r.stderr
