"""Compressed input cannot expand without limit: a gzip trace inflates to at
most FASTENOUGH_MAX_INFLATE_RATIO (default 200) times its size on disk (never
less than 256 MiB allowed), text that cannot be JSON is refused at its first
byte, and an .npz whose members overlap is refused as Python's zipfile refuses
it. Each is a clear input error (exit 2), never an internal error, and the
peak memory of the child stays far below what the bomb would inflate to."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
from hostile_inputs import write_gzip_bomb, write_overlapping_npz

MiB = 1 << 20


# Runs the command in a grandchild and reports its peak RSS: a child forked
# straight from pytest (torch loaded) would inherit pytest's high-water mark.
_PEAK_OF = """
import os, sys
pid = os.fork()
if pid == 0:
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # the report: not needed here
    os.execv(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
sys.stdout.write(str(usage.ru_maxrss * 1024))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def _run(*args: str, env: dict | None = None) -> tuple[int, str, int]:
    """Exit status, stderr and the peak RSS (bytes) of `python -m fastenough ARGS`."""
    r = subprocess.run([sys.executable, "-c", _PEAK_OF, sys.executable, "-m", "fastenough",
                        *map(str, args)], capture_output=True, text=True,
                       env={**os.environ, **(env or {})}, timeout=300)
    return r.returncode, r.stderr, int(r.stdout)


def test_a_gzip_bomb_is_refused_at_the_limit(tmp_path):
    bomb = write_gzip_bomb(tmp_path / "bomb.json.gz", 2048 * MiB)  # ~2 MiB on disk
    assert bomb.stat().st_size < 4 * MiB
    rc, err, peak = _run("analyze", bomb)
    assert rc == 2, err
    assert "internal error" not in err and "Traceback" not in err
    assert "too large" in err and "FASTENOUGH_MAX_INFLATE_RATIO" in err, err
    assert peak < 900 * MiB, peak  # it reached 2 GiB and more before


def test_the_limit_can_be_raised(tmp_path):
    trace = write_gzip_bomb(tmp_path / "big.json.gz", 300 * MiB, head=b"[")
    rc, err, _ = _run("analyze", trace)
    assert rc == 2 and "too large" in err, err
    rc, err, _ = _run("analyze", trace, env={"FASTENOUGH_MAX_INFLATE_RATIO": "100000"})
    assert "too large" not in err, err


def test_zeros_are_refused_at_byte_zero(tmp_path):
    bomb = write_gzip_bomb(tmp_path / "zeros.json.gz", 1024 * MiB, head=b"", fill=b"\0")
    rc, err, peak = _run("analyze", bomb, env={"FASTENOUGH_MAX_INFLATE_RATIO": "100000"})
    assert rc == 2, err
    assert "expected '{' or '[' at byte 0 of the decompressed text" in err, err
    assert peak < 200 * MiB, peak  # refused after the first block, not after 1 GiB


def test_overlapping_npz_members_are_refused(tmp_path):
    bomb = write_overlapping_npz(tmp_path / "bomb.npz", copies=40)
    assert bomb.stat().st_size < 1 * MiB
    ok = tmp_path / "ok.npz"
    np.savez_compressed(ok, a=np.zeros(4))
    rc, err, peak = _run("compare", bomb, ok)
    assert rc == 2, err
    assert "overlap" in err and "internal error" not in err, err
    assert peak < 500 * MiB, peak  # 40 x 64 MiB before


def test_npz_member_named_twice_is_refused(tmp_path):
    import zipfile

    path = tmp_path / "dup.npz"
    with zipfile.ZipFile(path, "w") as z:
        for value in (1.0, 2.0):
            import io

            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.full(3, value))
            z.writestr("x.npy", buf.getvalue())  # zipfile warns, writes both
    rc, err, _ = _run("compare", path, path)
    assert rc == 2, err
    assert "member 'x.npy' appears twice" in err, err


def test_a_legitimate_highly_compressed_npz_is_read(tmp_path):
    # 32 MiB of zeros deflate ~1000:1: the format's own bound, as numpy reads it.
    a = tmp_path / "a.npz"
    np.savez_compressed(a, mask=np.zeros(32 * MiB, dtype=np.uint8))
    rc, err, _ = _run("compare", a, a)
    assert rc == 0, err
