"""Inputs must be regular files: a FIFO nobody writes to would make a reader
wait forever in open(), and a device never ends. Every file a verb is handed
(a trace, a plan, a summary, a report) is opened by fastenough/regular_file.py's
rule (O_NONBLOCK, regular files only, a size bound), as the C++ core opens its
inputs (util/file_bytes.h OpenRegularFile), and refused in the same words:
"PATH: not a regular file (a FIFO or pipe); save it to a file first", exit 2."""

from __future__ import annotations

import os
import stat
from typing import BinaryIO

from fastenough.errors import BadInputError, InputNotFoundError, UsageError
from fastenough.regular_file import (
    FileTooLargeError,
    NotRegularFileError,
    kind_of,
    open_regular,
)
from fastenough.visible import visible


def _not_regular(shown: str, kind: str) -> UsageError:
    return UsageError(f"{shown}: not a regular file ({kind}); save it to a file first")


def require_regular_file(path: str) -> os.stat_result:
    """os.stat(path) of a regular file, else the error a user should see."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputNotFoundError(f"{visible(path)}: no such file") from None
    except OSError as e:
        raise InputNotFoundError(f"{visible(path)}: {e.strerror or e}") from None
    if not stat.S_ISREG(st.st_mode):
        raise _not_regular(visible(path), kind_of(st.st_mode))
    return st


def open_input(path: str, max_bytes: int | None = None, what: str = "") -> BinaryIO:
    """`path` opened for reading (binary) when it is a regular file of at most
    max_bytes, without ever waiting on it; else the error a user should see:
    exit 2 with the file named ("--plan PATH: ..." when `what` is "--plan")."""
    shown = (what + " " if what else "") + visible(path)
    try:
        return open_regular(path, max_bytes)
    except FileNotFoundError:
        raise InputNotFoundError(f"{shown}: no such file") from None
    except NotRegularFileError as e:
        raise _not_regular(shown, e.kind) from None
    except FileTooLargeError as e:
        raise BadInputError(f"{shown}: {e.strerror}") from None
    except OSError as e:
        raise InputNotFoundError(f"{shown}: {e.strerror or e}") from None


def read_input(path: str, max_bytes: int, what: str = "") -> bytes:
    """The whole of input file `path` (open_input's rules); a file that grows past
    max_bytes while it is read is refused all the same."""
    with open_input(path, max_bytes, what) as f:
        try:
            data = f.read(max_bytes + 1)
        except OSError as e:
            shown = (what + " " if what else "") + visible(path)
            raise InputNotFoundError(f"{shown}: {e.strerror or e}") from None
    if len(data) > max_bytes:
        shown = (what + " " if what else "") + visible(path)
        raise BadInputError(f"{shown}: too large: more than the limit of {max_bytes} bytes")
    return data
