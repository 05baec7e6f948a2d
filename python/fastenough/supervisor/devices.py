"""Visible-device mapping: which physical devices the job's local indices name."""

from __future__ import annotations

VARIABLES = {"nvml": "CUDA_VISIBLE_DEVICES", "npu-smi": "ASCEND_RT_VISIBLE_DEVICES"}


def visible_mapping(env: dict[str, str], devices: list[dict]) -> dict | None:
    """Map local device index -> physical index for the backend that has devices.

    CUDA_VISIBLE_DEVICES entries are indices ("1,0"), UUIDs ("GPU-8f2c..."), or
    UUID prefixes; parsing stops at the first invalid entry, as CUDA does.
    Unset: every device is visible in physical order. Returns None without devices.
    """
    if not devices:
        return None
    source = devices[0]["source"]
    var = VARIABLES.get(source, "CUDA_VISIBLE_DEVICES")
    own = [d for d in devices if d["source"] == source]
    value = env.get(var)
    if value is None:
        return {"variable": var, "value": None, "physical": [d["index"] for d in own]}
    physical: list[int] = []
    for raw in value.split(","):
        entry = raw.strip()
        if not entry:
            break
        if entry.lstrip("-").isdigit():
            idx = int(entry)
            if idx < 0 or not any(d["index"] == idx for d in own):
                break
            physical.append(idx)
            continue
        match = [d for d in own if d.get("uuid") and d["uuid"].startswith(entry)]
        if len(match) != 1:
            break
        physical.append(match[0]["index"])
    return {"variable": var, "value": value, "physical": physical}
