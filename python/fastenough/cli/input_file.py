"""Inputs must be regular files: a FIFO nobody writes to would make a reader
wait forever in open(), and a device never ends. The C++ core refuses them too
(util/file_bytes.cc opens with O_NONBLOCK and checks); this says so before any
work starts, in the same words."""

from __future__ import annotations

import os
import stat

from fastenough.errors import InputNotFoundError, UsageError
from fastenough.render.escape import visible

_KINDS = ((stat.S_ISFIFO, "a FIFO or pipe"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISDIR, "a directory"))


def require_regular_file(path: str) -> os.stat_result:
    """os.stat(path) of a regular file, else the error a user should see."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputNotFoundError(f"{visible(path)}: no such file") from None
    except OSError as e:
        raise InputNotFoundError(f"{visible(path)}: {e.strerror or e}") from None
    if not stat.S_ISREG(st.st_mode):
        kind = next((name for test, name in _KINDS if test(st.st_mode)), "not a file")
        raise UsageError(f"{visible(path)}: not a regular file ({kind}); save it to a file "
                         "first")
    return st
