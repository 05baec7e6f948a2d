"""The raw series behind the HTML report's charts, read from a run directory:
samples.csv (the sampler's rows, docs/run-directory.md) and steps.jsonl (one
line per step). The report's figures come from report.json; these files only
feed the pictures of the same run. Missing or damaged files give empty series,
and so do files that are no regular file (store/run_dir.py open_run_file)."""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from fastenough.render.bounded import steady_rows
from fastenough.report.model import Report
from fastenough.store.run_dir import open_run_file


@dataclass
class DeviceSeries:
    label: str  # "nvml 0"
    util_pct: list[tuple[int, float]] = field(default_factory=list)  # (wall_ns, value)
    power_w: list[tuple[int, float]] = field(default_factory=list)
    mem_used: list[tuple[int, float]] = field(default_factory=list)
    mem_total: float | None = None


@dataclass
class Samples:
    devices: list[DeviceSeries] = field(default_factory=list)
    cpu_pct: list[tuple[int, float]] = field(default_factory=list)
    rss: list[tuple[int, float]] = field(default_factory=list)

    def empty(self) -> bool:
        return not self.devices and not self.cpu_pct and not self.rss


def _num(text: str | None) -> float | None:
    if not text:
        return None
    try:
        v = float(text)
    except ValueError:
        return None
    return None if math.isnan(v) else v


def read_samples(run_dir: str | Path) -> Samples:
    path = Path(run_dir) / "samples.csv"
    out = Samples()
    by_key: dict[str, DeviceSeries] = {}
    try:
        f = io.TextIOWrapper(open_run_file(path), encoding="utf-8", newline="")
    except OSError:  # missing, or no regular file (a FIFO): no series
        return out
    with f:
        try:
            for row in csv.DictReader(f):
                t = _num(row.get("wall_ns"))
                if t is None:
                    continue
                t = int(t)
                if row.get("source") == "proc":
                    cpu, rss = _num(row.get("cpu_pct")), _num(row.get("rss_bytes"))
                    if cpu is not None:
                        out.cpu_pct.append((t, cpu))
                    if rss is not None:
                        out.rss.append((t, rss))
                    continue
                if row.get("source") == "proc-pid":
                    continue  # the tree's CPU by process: for the report's rules, not charted
                key = f"{row.get('source')} {row.get('device')}"
                dev = by_key.get(key)
                if dev is None:
                    dev = by_key[key] = DeviceSeries(key)
                    out.devices.append(dev)
                for name, series in (("util_pct", dev.util_pct), ("power_w", dev.power_w),
                                     ("mem_used_bytes", dev.mem_used)):
                    v = _num(row.get(name))
                    if v is not None:
                        series.append((t, v))
                total = _num(row.get("mem_total_bytes"))
                if total:
                    dev.mem_total = total
        except (csv.Error, UnicodeDecodeError):
            pass  # a cut-off last line: keep the rows read so far
    return out


def _json_lines(data: bytes) -> list:
    """The values of a JSON-lines file, a line that is no JSON left out. One parse of
    the lines as an array where every line is whole (thousands of steps: one
    json.loads call, not one per line), else line by line."""
    lines = [line for line in data.split(b"\n") if line.strip()]
    try:
        rows = json.loads(b"[" + b",".join(lines) + b"]")
    except (ValueError, UnicodeDecodeError, RecursionError):
        rows = None
    if isinstance(rows, list) and len(rows) == len(lines):
        return rows
    out = []
    for line in lines:
        try:
            out.append(json.loads(line))
        except (ValueError, UnicodeDecodeError, RecursionError):
            continue
    return out


def steady_step_durations(run_dir: str | Path) -> tuple[list[int], int | None]:
    """Durations (ns) of the steady steps of the lowest rank in steps.jsonl, and that rank."""
    path = Path(run_dir) / "steps.jsonl"
    by_rank: dict[int, list[int]] = {}
    try:
        f = open_run_file(path)
    except OSError:  # missing, or no regular file (a FIFO): no series
        return [], None
    with f:
        rows = _json_lines(f.read())
        for s in rows:
            if not isinstance(s, dict) or s.get("phase") != "steady":
                continue
            start, end = s.get("start_mono_ns"), s.get("end_mono_ns")
            if not isinstance(start, int) or not isinstance(end, int) or end < start:
                continue
            by_rank.setdefault(s.get("rank") or 0, []).append(end - start)
    if not by_rank:
        return [], None
    rank = min(by_rank)
    return by_rank[rank], rank


def trace_step_durations(report: Report) -> tuple[list[int], int | None]:
    """For a trace: the profiler's step windows of the first rank after its warmup."""
    per_rank = report.steps.per_rank
    if not per_rank:
        return [], None
    r = per_rank[0]
    # A rank of many steps lists some of them (render/bounded.py).
    steady = steady_rows(r, r.windows)
    return [w.dur_ns for w in steady if w.dur_ns], r.rank
