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

from fastenough.render.record import compute_dtype

PROTOCOL_FILE = "protocol.json"


def _main_agent(report: dict) -> dict:
    agents = (report.get("meta") or {}).get("agents") or []
    for a in agents:
        if a.get("role") == "main":
            return a
    return agents[0] if agents else {}


def _steps_totals(run_dir: Path) -> tuple[float | None, float | None]:
    """The median items of a steady step, and its tokens per item. (Not the items
    processed: the last step of a model-call loop goes unseen; the outputs'
    comparison counts items, by their keys.)"""
    try:
        lines = (run_dir / "steps.jsonl").read_text().splitlines()
    except OSError:
        return None, None
    rows = []
    for line in lines:
        try:
            rows.append(json.loads(line))
        except ValueError:
            continue
    steady = [r for r in rows if r.get("phase") == "steady" and r.get("items")]
    from fastenough import _core

    batch = _core.median([float(r["items"]) for r in steady]) if steady else None
    if batch is not None and batch == int(batch):
        batch = int(batch)
    per_item = [r["tokens"] / r["items"] for r in steady if r.get("tokens")]
    length = _core.median(per_item) if per_item else None
    return batch, length


def user_fields(run_dir: Path) -> dict:
    try:
        data = json.loads((run_dir / PROTOCOL_FILE).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def protocol_of(report: dict, run_dir: Path, env: dict[str, str]) -> dict:
    """The protocol record of one run: field -> value (None: not seen)."""
    agent = _main_agent(report)
    batch, length = _steps_totals(run_dir)
    devices = ", ".join(f"{d.get('device')} {d.get('name', '')}".strip()
                        for d in agent.get("devices") or []) or None
    fields = {
        "batch size (items per steady step)": batch,
        "tokens per item (padded length)": None if length is None else round(length, 2),
        "compute dtype": compute_dtype(report),
        "torch": agent.get("torch"),
        "device": devices,
        "world size": (report.get("meta") or {}).get("world_size"),
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
