"""Writes the agent's files into the run directory (the contract with `fastenough run`).

Every file is either append-only with one `os.write` per batch of whole lines
(O_APPEND keeps lines of several ranks from interleaving) or written atomically
(temp file + os.replace), so a process killed at any point leaves readable files.
"""

from __future__ import annotations

import json
import os


class RunDirWriter:
    def __init__(self, path: str) -> None:
        self.path = os.path.abspath(path)

    def file(self, *parts: str) -> str:
        return os.path.join(self.path, *parts)

    def append_lines(self, name: str, lines: list[str]) -> None:
        if not lines:
            return
        data = "".join(line + "\n" for line in lines).encode()
        fd = os.open(self.file(name), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            view = memoryview(data)
            while view:
                n = os.write(fd, view)
                view = view[n:]
        finally:
            os.close(fd)

    def write_json(self, rel: str, obj) -> None:
        path = self.file(rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.tmp{os.getpid()}"
        with open(tmp, "w") as f:
            json.dump(obj, f, indent=1)
            f.write("\n")
        os.replace(tmp, path)

    def append_log(self, text: str) -> None:
        with open(self.file("agent.log"), "a") as f:
            f.write(text)


def dumps(obj) -> str:
    return json.dumps(obj, separators=(",", ":"))
