"""`fastenough.record(key, value)`: outputs kept for `fastenough compare`, cheap
enough to leave on in a sweep.

The caller's thread only flattens the value into (key, tensor) pairs and takes
a host copy of each tensor (a device tensor is copied to host memory; a CPU
tensor is cloned, so that the program's later in-place edits do not change
what was recorded). A background thread packs the copies into safetensors
shards of about `shard_bytes` under outputs/ (outputs/rank<R>/ in a torchrun
job) and rewrites records.index.json after each shard:

  {"schema": "fastenough.records/1", "shards": ["records-00000.safetensors", ...],
   "keys": {"<key>": {"shard": str, "dtype": "F32", "shape": [..], "bytes": int}}}

Shards and the index are written to a temporary name and renamed, so a killed
process leaves whole files. A failure of the writer switches recording off and
is reported in the run report; only a second record of the same key raises
(DuplicateRecordError, naming both call sites) in the user's program.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import traceback
from collections import deque

from fastenough.errors import DuplicateRecordError

SHARD_BYTES = 64 << 20
# The writer may fall this far behind before record() waits for it: bounds the
# host memory held by copies not yet written.
MAX_QUEUED_BYTES = 1 << 30
INDEX = "records.index.json"


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_INSIDE: dict[str, bool] = {}  # code file name -> inside the fastenough package


def _inside_package(filename: str) -> bool:
    inside = _INSIDE.get(filename)
    if inside is None:
        inside = _INSIDE[filename] = os.path.abspath(filename).startswith(_PACKAGE)
    return inside


def _call_site() -> str:
    """file:line of the user's call to fastenough.record (first frame outside fastenough)."""
    f = sys._getframe(1)
    while f is not None and _inside_package(f.f_code.co_filename):
        f = f.f_back
    return f"{f.f_code.co_filename}:{f.f_lineno}" if f is not None else "?"


def _numbers(value, torch):
    """Python numbers (or a rectangular list of them) as a tensor; floats stay float64,
    as Python holds them (torch's default float32 would round them)."""
    t = torch.as_tensor(value)
    # Converting t would keep float32's rounding: read the numbers again as float64.
    return torch.as_tensor(value, dtype=torch.float64) if t.is_floating_point() else t


def flatten(key: str, value, torch, out: list) -> None:
    """(key, tensor) pairs: a dict adds key/subkey, a list or tuple of tensors or
    dicts adds key/0, key/1, ...; a Python number, or a list of numbers, is one tensor."""
    if isinstance(value, torch.Tensor):
        out.append((key, value))
    elif isinstance(value, dict):
        for k, v in value.items():
            flatten(f"{key}/{k}", v, torch, out)
    elif isinstance(value, (list, tuple)):
        if not any(isinstance(v, (torch.Tensor, dict)) for v in value):
            try:  # numbers, or a rectangular list of lists of numbers: one tensor
                out.append((key, _numbers(value, torch)))
                return
            except (TypeError, ValueError, RuntimeError):
                pass  # ragged, or tensors further down
        for i, v in enumerate(value):
            flatten(f"{key}/{i}", v, torch, out)
    elif isinstance(value, (bool, int, float)):
        out.append((key, _numbers(value, torch)))
    else:
        raise TypeError(f"fastenough.record: {key!r}: cannot record a {type(value).__name__} "
                        "(tensors, numbers, and dicts/lists of them are recorded)")


def host_copy(t, torch):
    t = t.detach()
    if t.device.type == "cpu":
        return t.clone(memory_format=torch.contiguous_format)
    return t.to("cpu").contiguous()


class OutputRecorder:
    def __init__(self, out_dir: str, log, shard_bytes: int = SHARD_BYTES) -> None:
        self.out_dir = out_dir
        self._log = log  # callable(text): the agent's log
        self.shard_bytes = shard_bytes
        self.enabled = True
        self.error: str | None = None
        self.sites: dict[str, str] = {}
        self.index: dict[str, dict] = {}
        self.shards: list[str] = []
        self.bytes = 0
        self.dtypes: dict[str, int] = {}
        self._queue: deque = deque()
        self._queued_bytes = 0
        self._cv = threading.Condition()
        self._closing = False
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------- caller's thread
    def record(self, key, value, torch) -> None:
        if not isinstance(key, (str, int)) or isinstance(key, bool):
            raise TypeError(f"fastenough.record: the key must be a str or an int, not "
                            f"{type(key).__name__}")
        site = _call_site()
        pairs: list = []
        flatten(str(key), value, torch, pairs)
        for k, _ in pairs:
            first = self.sites.get(k)
            if first is not None:
                raise DuplicateRecordError(
                    f"fastenough.record: key {k!r} recorded twice: first at {first}, again at "
                    f"{site} (each item key is recorded once; use another key)")
        for k, _ in pairs:
            self.sites[k] = site
        if not self.enabled or self._closing:  # off after a writer error, or past exit
            return
        copies = [(k, host_copy(t, torch)) for k, t in pairs]
        size = sum(c.numel() * c.element_size() for _, c in copies)
        with self._cv:
            while self._queued_bytes > MAX_QUEUED_BYTES and self.enabled:
                self._cv.wait(1.0)
            self._queue.extend(copies)
            self._queued_bytes += size
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="fastenough-record",
                                                daemon=True)
                self._thread.start()
            # Wake the writer only for a whole shard: a thread woken per record
            # would fight the program for the GIL at every call.
            if self._queued_bytes >= self.shard_bytes:
                self._cv.notify_all()

    def close(self, timeout: float | None = None) -> None:
        """Write what is queued and stop the writer (at exit; idempotent)."""
        with self._cv:
            self._closing = True
            self._cv.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def summary(self) -> dict:
        """The agent record's "records" (what the run report lists)."""
        return {"dir": self.out_dir, "keys": len(self.index), "bytes": self.bytes,
                "dtypes": dict(sorted(self.dtypes.items())), "shards": len(self.shards),
                "error": self.error}

    # ------------------------------------------------------------- writer thread
    def _run(self) -> None:
        pending: list = []
        pending_bytes = 0
        try:
            while True:
                with self._cv:
                    while self._queued_bytes < self.shard_bytes and not self._closing:
                        self._cv.wait()
                    batch = list(self._queue)
                    self._queue.clear()
                    closing = self._closing
                for k, t in batch:
                    pending.append((k, t))
                    pending_bytes += t.numel() * t.element_size()
                    if pending_bytes >= self.shard_bytes:
                        self._write_shard(pending)
                        pending, pending_bytes = [], 0
                with self._cv:
                    self._queued_bytes -= sum(t.numel() * t.element_size() for _, t in batch)
                    self._cv.notify_all()
                if closing:
                    if pending:
                        self._write_shard(pending)
                    return
        except Exception:  # noqa: BLE001 - the program goes on; the report says why
            self.fail()

    def _write_shard(self, pending: list) -> None:
        from fastenough.agent.safetensors_writer import write_safetensors

        os.makedirs(self.out_dir, exist_ok=True)
        name = f"records-{len(self.shards):05d}.safetensors"
        header = write_safetensors(os.path.join(self.out_dir, name), dict(pending))
        self.shards.append(name)
        for k, entry in header.items():
            n = entry["data_offsets"][1] - entry["data_offsets"][0]
            self.index[k] = {"shard": name, "dtype": entry["dtype"], "shape": entry["shape"],
                             "bytes": n}
            self.bytes += n
            self.dtypes[entry["dtype"]] = self.dtypes.get(entry["dtype"], 0) + 1
        doc = {"schema": "fastenough.records/1", "shards": self.shards, "keys": self.index}
        path = os.path.join(self.out_dir, INDEX)
        tmp = f"{path}.tmp{os.getpid()}"
        with open(tmp, "w") as f:
            json.dump(doc, f, separators=(",", ":"))
        os.replace(tmp, path)

    def fail(self) -> None:
        """Switch recording off after the exception being handled; log it once."""
        if self.error is not None:
            return
        exc = sys.exc_info()[1]
        with self._cv:
            self.enabled = False
            self.error = f"{type(exc).__name__}: {exc}"
            self._queue.clear()
            self._queued_bytes = 0
            self._cv.notify_all()
        try:  # noqa: SIM105
            self._log(f"fastenough: recording outputs stopped after an error in the writer "
                      f"(pid {os.getpid()}):\n{traceback.format_exc()}\n")
        except Exception:  # noqa: BLE001, S110
            pass
