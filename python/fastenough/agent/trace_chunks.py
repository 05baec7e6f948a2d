"""One trace from the profiler window's per-step chunks (see profile_window.py).

Each chunk is a Kineto Chrome trace of one step, as torch writes it:
    {"schemaVersion": 1, "deviceProperties": [...], ..., "baseTimeNanoseconds": N,
     "traceEvents": [ {...}, ... ], "traceName": "..."}
All chunks of a process share baseTimeNanoseconds (timestamps are relative to
it), so joining them is concatenating their event arrays under the first
chunk's header. Done as text, one chunk in memory at a time: parsing a large
step's trace into Python objects would cost the program's process more memory
than the trace itself. A chunk of another shape is parsed as JSON instead.
"""

from __future__ import annotations

import gzip
import json
import os

_EVENTS = b'"traceEvents": ['


def _events_of(text: bytes) -> tuple[bytes, bytes] | None:
    """(header up to and including the events' '[', the events' text), or None."""
    start = text.find(_EVENTS)
    end = text.rfind(b"]")
    if start < 0 or end < start:
        return None
    head = text[: start + len(_EVENTS)]
    return head, text[start + len(_EVENTS): end].strip().rstrip(b",").strip()


def join_chunks(paths: list[str], out_gz: str) -> None:
    """Write the chunks' events as one gzipped trace at out_gz (atomically)."""
    tmp = out_gz + ".tmp"
    wrote_head = False
    first_event = True
    with gzip.open(tmp, "wb", compresslevel=3) as dst:
        for path in paths:
            with open(path, "rb") as f:
                text = f.read()
            parts = _events_of(text)
            if parts is None:
                parts = _parsed(text)
            head, events = parts
            if not wrote_head:
                dst.write(head + b"\n")
                wrote_head = True
            if events:
                if not first_event:
                    dst.write(b",\n")
                dst.write(events)
                first_event = False
        if not wrote_head:
            dst.write(b'{"traceEvents": [')
        dst.write(b"\n]}\n")
    os.replace(tmp, out_gz)


def _parsed(text: bytes) -> tuple[bytes, bytes]:
    doc = json.loads(text)
    events = doc.pop("traceEvents", []) if isinstance(doc, dict) else doc
    header = dict(doc) if isinstance(doc, dict) else {}
    head = json.dumps(header)[:-1].encode()
    head = (head + (b", " if header else b"") + _EVENTS) if head != b"{" else b"{" + _EVENTS
    return head, b",\n".join(json.dumps(e).encode() for e in events)
