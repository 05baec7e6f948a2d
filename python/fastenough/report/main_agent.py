"""The agent record that speaks for a run's program: the main process's, else the
first rank's, else the first record (meta.agents, typed: report/model.py's MetaAgent)."""

from __future__ import annotations

from fastenough.report.model import Meta, MetaAgent


def main_agent(meta: Meta) -> MetaAgent | None:
    """None: no agent record (a trace's report, or a run no agent reached)."""
    agents = meta.agents or ()
    for role in ("main", "rank"):
        for a in agents:
            if a.role == role:
                return a
    return agents[0] if agents else None


def agent_devices_text(agent: MetaAgent | None) -> str | None:
    """The devices torch saw in that process ("cpu x86_64", "cuda:0 NVIDIA H100"); None:
    none recorded."""
    devices = (agent.devices if agent else None) or ()
    return ", ".join(f"{d.device} {d.name or ''}".strip() for d in devices) or None
