"""The phase timeline: one bar per rank from the run's start to its end, each
phase a coloured stretch (startup, warmup, steady, profile, tail, and the
user's own phases on a lane of their own), with the time axis in seconds."""

from __future__ import annotations

from fastenough.render.html import svg
from fastenough.render.ranks import RANK_DETAIL_MAX
from fastenough.render.units import fmt_ns
from fastenough.render.view.model import Timeline
from fastenough.report.model import Phase, RunDetailsPhase

PHASE_COLORS = {
    "startup": "#9aa5b1",
    "load": "#7b8794",
    "warmup": "#f0b429",
    "steady": "#2f80ed",
    "profile": "#9b51e0",
    "tail": "#c3ccd6",
}
_OTHER_COLORS = ("#27ae60", "#eb5757", "#00a3a3", "#f2994a", "#56ccf2", "#bb6bd9")

WIDTH, LEFT, RIGHT = 960, 130, 20


def palette(t: Timeline) -> dict[str, str]:
    """A colour per phase name: fixed for fastenough's phases, the user's in order of
    first appearance, so that every chart of the page colours a phase alike."""
    colors = dict(PHASE_COLORS)
    n = 0
    for p, _ in t.rows:
        name = p.name
        if name not in colors:
            colors[name] = _OTHER_COLORS[n % len(_OTHER_COLORS)]
            n += 1
    return colors


Row = tuple[Phase, RunDetailsPhase | None]


def auto(d: RunDetailsPhase | None) -> bool:
    """A phase fastenough marks itself (not the user's own); so is one without details."""
    return d is None or d.auto


def phase_rows(t: Timeline) -> list[Row]:
    """(phase, details) pairs, details aligned by position as the C++ writes them."""
    return t.rows


def time_span(t: Timeline) -> tuple[int, int] | None:
    """Wall-clock ns of the run's start and end (the phases' when meta lacks them)."""
    starts = [p.start_ns for p, _ in t.rows if p.start_ns]
    ends = [p.end_ns for p, _ in t.rows if p.end_ns]
    t0 = t.start_wall_ns or (min(starts) if starts else None)
    t1 = t.end_wall_ns or (max(ends) if ends else None)
    if not t0 or not t1 or t1 <= t0:
        return None
    return t0, t1


EXIT_COLOR = "#e4e7eb"
# Time after the last phase shorter than this (or than 1% of the run) is not
# drawn: the agent's last mark and the process's end are never the same instant.
EXIT_MIN_NS = 200_000_000


def _unmarked_exit(members: list[Row], t0: int, t1: int) -> int:
    """ns from the lane's last phase end to the run's end, when it is long
    enough to be seen: the exit, which no phase names (3.9 s of a run were
    left unlabelled, issue 24)."""
    ends = [p.end_ns for p, _ in members if p.end_ns]
    if not ends:
        return 0
    gap = t1 - max(ends)
    return gap if gap >= max(EXIT_MIN_NS, 0.01 * (t1 - t0)) else 0


def seconds_label(v: float) -> str:
    return f"{v:g} s"


def timeline_svg(t: Timeline, uid: str = "timeline") -> str | None:
    rows = phase_rows(t)
    span = time_span(t)
    if not rows or span is None:
        return None
    t0, t1 = span
    ranks = sorted({p.rank for p, _ in rows}, key=lambda r: (r is None, r))
    slowest = None
    if len(ranks) <= RANK_DETAIL_MAX:
        shown = ranks
    else:
        # Many ranks: the first and the one with the most time in its steady phases.
        steady: dict = {}
        for p, _ in rows:
            if p.name == "steady":
                steady[p.rank] = steady.get(p.rank, 0) + (p.host_ns or 0)
        slowest = max(steady, key=steady.get) if steady else None
        shown = [ranks[0]] + ([slowest] if slowest not in (None, ranks[0]) else [])
    lanes: list[tuple[str, list[Row]]] = []
    auto_lanes: dict[str, list] = {}  # the lanes of fastenough's phases, by label
    for r in shown:
        mine = [(p, d) for p, d in rows if p.rank == r]
        ours = [(p, d) for p, d in mine if auto(d)]
        user = [(p, d) for p, d in mine if not auto(d)]
        prefix = f"rank {r}" if len(ranks) > 1 else "phases"
        if r == slowest and len(shown) > 1:
            prefix += " (slowest)"
        lanes.append((prefix, ours))
        auto_lanes[prefix] = ours
        if user:
            lanes.append(("your phases" if len(ranks) == 1 else f"rank {r} yours", user))
    lane_h, gap, top = 30, 10, 8
    height = top + len(lanes) * (lane_h + gap) + 40
    x = svg.Scale(0, (t1 - t0) / 1e9, LEFT, WIDTH - RIGHT)
    colors = palette(t)
    names = ", ".join(dict.fromkeys(p.name for p, _ in rows))
    desc = (f"Phases of the run over {fmt_ns(t1 - t0)}: {names}."
            + (f" Ranks {' and '.join(str(r) for r in shown)} of {len(ranks)} shown"
               + (f", rank {slowest} the slowest in its steady phases" if len(shown) > 1 else "")
               + "." if len(shown) < len(ranks) else ""))
    out = [svg.svg_open(WIDTH, height, "Phase timeline", desc, uid)]
    y = top
    axis_values = svg.ticks(0, (t1 - t0) / 1e9, 8)
    axis_y = top + len(lanes) * (lane_h + gap)
    # The grid goes under the phases: drawn first.
    out.append(svg.x_axis(x, axis_values, axis_y, seconds_label, grid_top=top,
                          title="seconds since the command started"))
    for label, members in lanes:
        out.append(svg.text(LEFT - 8, y + lane_h / 2 + 4, label, "lane-label", "end"))
        out.append(svg.rect(LEFT, y, WIDTH - RIGHT - LEFT, lane_h, "#f3f5f7", cls="lane"))
        for p, d in members:
            if not p.start_ns or not p.end_ns:
                continue
            a, b = x((p.start_ns - t0) / 1e9), x((p.end_ns - t0) / 1e9)
            name = p.name
            mode = f" ({d.mode})" if d is not None and d.mode and name in (
                "warmup", "steady", "profile") else ""
            tip = f"{name}{mode}: {fmt_ns(p.host_ns)}"
            out.append(svg.rect(a, y, max(b - a, 1.5), lane_h, colors[name], tip,
                                "phase"))
            if b - a > 7.5 * len(name) + 10:
                out.append(svg.text((a + b) / 2, y + lane_h / 2 + 4, name, "phase-label",
                                    "middle"))
        exit_ns = _unmarked_exit(members, t0, t1) if members is auto_lanes.get(label) else 0
        if exit_ns:
            a, b = x((t1 - exit_ns - t0) / 1e9), x((t1 - t0) / 1e9)
            out.append(svg.rect(a, y, max(b - a, 1.5), lane_h, EXIT_COLOR,
                                f"exit: {fmt_ns(exit_ns)} after the last phase (interpreter "
                                "shutdown, atexit handlers, files flushed)", "phase"))
            if b - a > 7.5 * len("exit") + 10:
                out.append(svg.text((a + b) / 2, y + lane_h / 2 + 4, "exit", "phase-label",
                                    "middle"))
        y += lane_h + gap
    out.append("</svg>")
    return "".join(out)


def legend(t: Timeline) -> list[tuple[str, str, str]]:
    """(colour, phase name, total host time over its occurrences, first rank)."""
    rows = phase_rows(t)
    if not rows:
        return []
    first = min((p.rank for p, _ in rows), key=lambda r: (r is None, r))
    totals: dict[str, int] = {}
    for p, _ in rows:
        if p.rank == first:
            totals[p.name] = totals.get(p.name, 0) + (p.host_ns or 0)
    colors = palette(t)
    out = [(colors.get(n, "#999"), n, fmt_ns(ns)) for n, ns in totals.items()]
    span = time_span(t)
    mine = [(p, d) for p, d in rows if p.rank == first and auto(d)]
    exit_ns = _unmarked_exit(mine, *span) if span else 0
    if exit_ns:
        out.append((EXIT_COLOR, "exit", fmt_ns(exit_ns)))
    return out
