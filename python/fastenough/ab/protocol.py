"""What each side measured under, and what differs between the sides.

A speed-up with a different batch size, padding, dtype, model or item count is
not the same experiment made faster: the verdict then says "with a protocol
change". Fields come from what the agent saw (items and tokens per step, the
matmul inputs' dtype, versions, devices), the environment the A/B set per
side, and what the program declared with `fastenough.protocol(name=value)`
(protocol.json in its run directory).
"""

from __future__ import annotations

import json
from pathlib import Path

from fastenough.report.dtype import compute_dtype
from fastenough.report.main_agent import agent_devices_text, main_agent
from fastenough.report.model import Report
from fastenough.store.run_dir import MAX_AGENT_FILE_BYTES, read_run_file

PROTOCOL_FILE = "protocol.json"


def _step_rows(run_dir: Path | None) -> list[dict]:
    if run_dir is None:  # a report.json alone (fastenough diff)
        return []
    try:
        lines = read_run_file(run_dir / "steps.jsonl").decode("utf-8", "replace").splitlines()
    except OSError:  # missing, or no regular file (a FIFO the program left)
        return []
    rows = []
    for line in lines:
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict) and row.get("items"):
            rows.append(row)
    return rows


def _batch_and_length(rows: list[dict]) -> tuple[float | None, float | None]:
    """The median items of a step, and the tokens per item of all of them."""
    if not rows:
        return None, None
    from fastenough import _core

    batch = _core.median([float(r["items"]) for r in rows])
    if batch == int(batch):
        batch = int(batch)
    with_tokens = [r for r in rows if r.get("tokens")]
    items = sum(r["items"] for r in with_tokens)
    length = sum(r["tokens"] for r in with_tokens) / items if items else None
    return batch, length


def _steps_totals(run_dir: Path | None) -> tuple[float | None, float | None]:
    """The median items of a step and the tokens per item over the whole run:
    properties of the run's input. (Not of the steady window alone: the
    adaptive warm-up ends at a different step in each run, and on a
    length-sorted dataset two identical commands then measured "32.5 -> 35.0
    tokens per item", issue 24. Not the items processed either: the last step
    of a model-call loop goes unseen; the outputs' comparison counts items.)"""
    return _batch_and_length(_step_rows(run_dir))


def steady_length(run_dir: Path) -> float | None:
    """Tokens per item of the steady steps alone: what the measured window saw."""
    return _batch_and_length([r for r in _step_rows(run_dir) if r.get("phase") == "steady"])[1]


def steady_window_note(a_dir: Path | None, b_dir: Path | None) -> str | None:
    """A note when the two sides' steady windows saw inputs of a different
    length while the runs' inputs are the same: the ratio then compares
    different batches, not the same work."""
    if a_dir is None or b_dir is None:
        return None
    la, lb = steady_length(a_dir), steady_length(b_dir)
    if not la or not lb or abs(la - lb) <= 0.05 * max(la, lb):
        return None
    return (f"the steady windows covered different inputs (A {la:.1f}, B {lb:.1f} tokens per "
            "item) although the runs' inputs are the same: the ratio compares different "
            "batches; run more steps so that the steady windows cover the same data")


def user_fields(run_dir: Path | None) -> dict:
    if run_dir is None:
        return {}
    try:
        data = json.loads(read_run_file(run_dir / PROTOCOL_FILE, MAX_AGENT_FILE_BYTES))
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def protocol_of(report: Report, run_dir: Path | None, env: dict[str, str]) -> dict:
    """The protocol record of one run: field -> value (None: not seen). Without a
    run directory (a report.json alone) the fields from its files are None."""
    agent = main_agent(report.meta)
    batch, length = _steps_totals(run_dir)
    fields = {
        "batch size (items per steady step)": batch,
        "tokens per item (padded length)": None if length is None else round(length, 2),
        "compute dtype": compute_dtype(report),
        "torch": agent.torch if agent else None,
        "device": agent_devices_text(agent),
        "world size": report.meta.world_size,
    }
    for k, v in sorted(env.items()):
        fields[f"env {k}"] = v
    for k, v in sorted(user_fields(run_dir).items()):
        fields[f"declared {k}"] = v
    return fields


def protocol_changes(a: dict, b: dict) -> list[tuple[str, object, object]]:
    """(field, A's value, B's value) for every field the two sides saw differently.
    A field one side did not see at all is not a change (nothing to compare)."""
    out = []
    for key in list(a) + [k for k in b if k not in a]:
        va, vb = a.get(key), b.get(key)
        if key.startswith(("env ", "declared ")):
            if va != vb:
                out.append((key, va, vb))
        elif va is not None and vb is not None and va != vb:
            out.append((key, va, vb))
    return out
