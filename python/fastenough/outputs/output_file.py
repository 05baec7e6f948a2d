"""Writing a file the user named (`report -o`, `analyze --annotate`, `run --json`).

What the name may be, and what happens to it:
- `-`: standard output;
- a symbolic link: followed, as the shell's `>` follows it; its target is written
  and the link stays a link;
- a device, a FIFO or a socket: written as a stream, in place (`-o /dev/null`
  must never replace /dev/null with a file, even as root);
- a directory: refused;
- one of the command's inputs (by device and inode, so also through another
  link): refused, before anything is written;
- a regular file, or a new one: written to a temporary created with O_EXCL in
  the same directory (mkstemp: an unpredictable name, so a link planted there
  cannot redirect it), then renamed over the target, which keeps its mode (a new
  file gets 0666 less the umask). The temporary is removed on every error path,
  Ctrl-C included, so a failed write leaves the old file as it was.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import BinaryIO

from fastenough.errors import OutputError, UsageError
from fastenough.visible import visible


@dataclass
class Target:
    shown: str  # the name as the user gave it, for messages
    path: str | None  # the resolved path; None for stdout
    stream: bool  # written in place (stdout, a device, a FIFO)


def resolve(dest: str, inputs: Iterable[str] = (), what: str = "-o") -> Target:
    """Where `dest` will be written, or a UsageError when it must not be."""
    if dest == "-":
        return Target(dest, None, True)
    path = os.path.realpath(dest)
    shown = visible(dest)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        parent = os.path.dirname(path)
        if not os.path.isdir(parent):
            raise UsageError(f"{what} {shown}: no such directory {visible(parent)}") from None
        return Target(shown, path, False)
    except OSError as e:
        raise OutputError(f"{what} {shown}: {e.strerror or e}") from None
    if stat.S_ISDIR(st.st_mode):
        raise UsageError(f"{what} {shown}: is a directory")
    for given in inputs:
        with contextlib.suppress(OSError):
            if os.path.samefile(given, path):
                raise UsageError(f"{what} {shown} would overwrite its input {visible(given)}; "
                                 "name another file")
    return Target(shown, path, not stat.S_ISREG(st.st_mode))


@contextlib.contextmanager
def open_output(target: Target, what: str = "-o") -> Iterator[BinaryIO]:
    """A binary file to write `target` through; committed (renamed into place)
    when the block ends without an exception, removed otherwise."""
    if target.path is None:
        sys.stdout.flush()
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    if target.stream:
        try:
            # No O_CREAT, no O_TRUNC: the device or FIFO stays what it is. A FIFO
            # blocks here until a reader opens it, as `> fifo` does in a shell.
            fd = os.open(target.path, os.O_WRONLY | os.O_NOCTTY | os.O_CLOEXEC)
        except OSError as e:
            raise OutputError(f"{what} {target.shown}: {e.strerror or e}") from None
        with os.fdopen(fd, "wb") as f:
            try:
                yield f
                f.flush()
            except OSError as e:
                raise OutputError(f"{what} {target.shown}: {e.strerror or e}") from None
        return
    directory, name = os.path.split(target.path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
    except OSError as e:
        raise OutputError(f"{what} {target.shown}: {e.strerror or e}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fchmod(f.fileno(), _mode_for(target.path))
        os.replace(tmp, target.path)
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(e, OSError):
            raise OutputError(f"{what} {target.shown}: {e.strerror or e}") from None
        raise


def _mode_for(path: str) -> int:
    """The mode the file has, or what open() would give a new one."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def write_output(dest: str, data: str | bytes, inputs: Iterable[str] = (),
                 what: str = "-o") -> Target:
    """Write `data` (text as UTF-8) to `dest` by the rules above."""
    target = resolve(dest, inputs, what)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    with open_output(target, what) as f:
        f.write(payload)
    return target
