"""Opening a file that may be anything, the way every input is read.

A path can name a FIFO nobody writes to (open() then waits forever), a device
that never ends (/dev/zero), or a sparse file of terabytes. A program owns its
run directory while it runs and may leave any of them where the agent's files
go; a user may pass one as an input. So a file is opened with O_NONBLOCK,
accepted only when fstat on the descriptor says it is a regular file, and
refused when it is larger than the bound the caller gives: nothing here ever
waits or reads without end. The C++ core follows the same rule
(util/file_bytes.h OpenRegularFile / ReadRegularFile), in the same words.

The refusals are OSErrors, so that readers that already skip an unreadable file
skip these too; their strerror is the reason alone ("not a regular file (a FIFO
or pipe)"), for the caller to name the file its way.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO

_KINDS = ((stat.S_ISFIFO, "a FIFO or pipe"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISDIR, "a directory"))


def kind_of(mode: int) -> str:
    """What a file that is not regular is, in words: "a FIFO or pipe"."""
    return next((name for test, name in _KINDS if test(mode)), "not a file")


class NotRegularFileError(OSError):
    """The path is there but is not a regular file (strerror says what it is)."""

    def __init__(self, path: str | os.PathLike, kind: str) -> None:
        super().__init__(errno.EINVAL, f"not a regular file ({kind})", os.fspath(path))
        self.kind = kind  # "a FIFO or pipe"


class FileTooLargeError(OSError):
    """A regular file larger than the caller's bound."""


def _too_large(path: str | os.PathLike, size: int, max_bytes: int) -> FileTooLargeError:
    return FileTooLargeError(errno.EFBIG, f"too large: {size} bytes, more than the limit of "
                             f"{max_bytes}", os.fspath(path))


def open_regular(path: str | os.PathLike, max_bytes: int | None = None) -> BinaryIO:
    """`path` opened for reading in binary, when it is a regular file of at most
    max_bytes (None: any size); else NotRegularFileError / FileTooLargeError, or
    the OSError of open() itself (FileNotFoundError, PermissionError)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFileError(path, kind_of(st.st_mode))
        if max_bytes is not None and st.st_size > max_bytes:
            raise _too_large(path, st.st_size, max_bytes)
        # Blocking again: on a regular file O_NONBLOCK changes nothing, and the
        # file object should not meet EAGAIN on other file systems (FUSE).
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str | os.PathLike, max_bytes: int) -> bytes:
    """The whole of a regular file of at most max_bytes (open_regular's rules); a
    file that grows past the bound while it is read is refused all the same."""
    with open_regular(path, max_bytes) as f:
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise _too_large(path, len(data), max_bytes)
    return data


def read_regular_text(path: str | os.PathLike, max_bytes: int, encoding: str = "utf-8",
                      errors: str = "strict") -> str:
    """read_regular, decoded (UnicodeDecodeError, a ValueError, when it is not)."""
    return read_regular(path, max_bytes).decode(encoding, errors)


def why(e: OSError) -> str:
    """The reason of an OSError alone, for a message that names the file itself."""
    return e.strerror or str(e)
