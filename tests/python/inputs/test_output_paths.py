"""Where `report -o`, `analyze --annotate` and `run --json FILE` write: a device,
a FIFO or `-` as a stream; a symbolic link's target (the link stays); never one
of the inputs; a regular file through a temporary made with O_EXCL beside it,
removed on every error path, never a predictable name that a planted link
could redirect. Real files, links, FIFOs, a device node and a full tmpfs."""

from __future__ import annotations

import os
import stat
import sys
import threading
from pathlib import Path

import pytest
from conftest import DATA
from private_mounts import left_on_tmpfs, run_on_full_tmpfs

TRACE = DATA / "traces" / "kineto_minimal.json"


def _trace(tmp_path: Path) -> Path:
    t = tmp_path / "t.json"
    t.write_bytes(TRACE.read_bytes())
    return t


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_output_to_a_character_device_stays_a_device(tmp_path, cli):
    node = tmp_path / "mynull"
    os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # what /dev/null is
    r = cli("report", _trace(tmp_path), "--md", "-o", node)
    assert r.returncode == 0, r.stderr
    assert stat.S_ISCHR(os.lstat(node).st_mode)  # was replaced by a regular file


def test_output_to_a_fifo_is_streamed_to_its_reader(tmp_path, cli):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as f:
            got.append(f.read())

    reader = threading.Thread(target=read, daemon=True)  # never holds pytest up
    reader.start()
    r = cli("report", _trace(tmp_path), "--md", "-o", fifo, timeout=60)
    reader.join(timeout=60)
    assert r.returncode == 0, r.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert got and got[0].startswith(b"# fastenough report")


def test_output_dash_is_stdout(tmp_path, cli):
    r = cli("report", _trace(tmp_path), "--md", "-o", "-", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("# fastenough report")
    assert not (tmp_path / "-").exists()


def test_output_through_a_symlink_writes_its_target(tmp_path, cli):
    target = tmp_path / "real.md"
    target.write_text("old\n")
    target.chmod(0o640)
    link = tmp_path / "link.md"
    link.symlink_to(target.name)
    r = cli("report", _trace(tmp_path), "-o", link)
    assert r.returncode == 0, r.stderr
    assert link.is_symlink() and os.readlink(link) == "real.md"
    assert target.read_text().startswith("# fastenough report")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # its mode is kept


def test_a_new_output_gets_the_usual_mode(tmp_path, cli):
    out = tmp_path / "new.md"
    old = os.umask(0o022)
    try:
        r = cli("report", _trace(tmp_path), "-o", out)
    finally:
        os.umask(old)
    assert r.returncode == 0, r.stderr
    assert stat.S_IMODE(out.stat().st_mode) == 0o644  # not mkstemp's 0600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.md", "t.json"]


@pytest.mark.parametrize("alias", ["same", "symlink", "hardlink"])
def test_report_never_overwrites_its_input(tmp_path, cli, alias):
    victim = _trace(tmp_path)
    before = victim.read_bytes()
    out = {"same": victim, "symlink": tmp_path / "alias.json",
           "hardlink": tmp_path / "alias.json"}[alias]
    if alias == "symlink":
        out.symlink_to(victim)
    elif alias == "hardlink":
        os.link(victim, out)
    r = cli("report", victim, "--html", "-o", out)
    assert r.returncode == 2, r.stderr
    assert "input" in r.stderr and "Traceback" not in r.stderr
    assert victim.read_bytes() == before


def test_report_of_a_run_never_overwrites_the_report_it_reads(tmp_path, cli):
    run = cli("run", "--no-trace", "--no-history", "--run-dir", tmp_path / "run", "--",
              sys.executable, "-c", "pass")
    assert run.returncode == 0, run.stderr
    report = tmp_path / "run" / "report.json"
    before = report.read_bytes()
    r = cli("report", tmp_path / "run", "--html", "-o", report)
    assert r.returncode == 2, r.stderr
    assert report.read_bytes() == before
    # --reanalyze reads the run's records, not report.json: writing it is a recovery.
    r = cli("report", tmp_path / "run", "--reanalyze", "--json", "-o", report)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("alias", ["same", "symlink", "hardlink"])
def test_annotate_never_overwrites_its_input(tmp_path, cli, alias):
    victim = _trace(tmp_path)
    before = victim.read_bytes()
    out = victim if alias == "same" else tmp_path / "alias.json"
    if alias == "symlink":
        out.symlink_to(victim)
    elif alias == "hardlink":
        os.link(victim, out)
    r = cli("analyze", victim, "--annotate", out)
    assert r.returncode == 2, r.stderr
    assert victim.read_bytes() == before


def test_annotate_does_not_follow_a_planted_temporary(tmp_path, cli):
    outside = tmp_path / "precious.txt"
    outside.write_text("keep me\n")
    out = tmp_path / "annotated.json"
    (tmp_path / "annotated.json.tmp").symlink_to(outside)  # the old, predictable name
    r = cli("analyze", _trace(tmp_path), "--annotate", out)
    assert r.returncode == 0, r.stderr
    assert outside.read_text() == "keep me\n"
    assert out.read_text().startswith("{")
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == ["annotated.json", "annotated.json.tmp", "precious.txt", "t.json"]


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_annotate_to_a_device_is_a_stream(tmp_path, cli):
    node = tmp_path / "mynull"
    os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    r = cli("analyze", _trace(tmp_path), "--annotate", node)
    assert r.returncode == 0, r.stderr
    assert stat.S_ISCHR(os.lstat(node).st_mode)


@pytest.mark.parametrize("how", [["report", "{t}", "--html", "-o", "out.html"],
                                 ["analyze", "{t}", "--annotate", "out.json"],
                                 ["analyze", "{t}", "--annotate", "out.json.gz"]])
def test_a_full_disk_leaves_no_temporary_and_says_so(tmp_path, how):
    mount = tmp_path / "mnt"
    mount.mkdir()
    args = " ".join(a.format(t=TRACE) for a in how)
    r = run_on_full_tmpfs(mount, f"{sys.executable} -m fastenough {args}")
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr
    assert "No space left on device" in r.stderr
    assert left_on_tmpfs(r) == []
