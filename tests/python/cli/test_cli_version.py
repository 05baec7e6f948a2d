"""`fastenough --version`: the version, the build's revision and its libraries."""

from __future__ import annotations

import re

from fastenough import __version__


def test_version_names_revision_and_backends(cli):
    proc = cli("--version")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == f"fastenough {__version__}"
    text = proc.stdout
    # A git checkout builds with its short hash; an sdist says "unknown".
    assert re.search(r"git revision: ([0-9a-f]{12}(\+dirty)?|unknown)\n", text), text
    assert re.search(r"json: simdjson \d+\.\d+\.\d+ \((system|vendored)\)", text), text
    assert re.search(r"gzip: libdeflate \d+\.\d+ \((system|vendored)\), zlib [\d.]+", text), text

