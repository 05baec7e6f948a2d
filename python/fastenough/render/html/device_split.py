"""Where device time went, per device: one stacked bar of the span from first
to last device activity, split into compute, communication, copies, memset and
idle time by cause (waiting for the host, between queued kernels, other)."""

from __future__ import annotations

from fastenough.render.html import svg
from fastenough.render.units import fmt_ns, fmt_share, share
from fastenough.report.model import Device

WIDTH, LEFT, RIGHT, TOP, BAR_H, GAP = 960, 150, 20, 10, 22, 8

# (label, colour, how to get the ns from a device row)
PARTS = (
    ("compute", "#2f80ed", lambda d: d.compute_ns),
    ("communication", "#9b51e0", lambda d: d.comm_ns),
    ("memcpy", "#f2994a", lambda d: d.memcpy_ns),
    ("memset", "#f2c94c", lambda d: d.memset_ns),
    ("idle: host wait", "#eb5757", lambda d: d.device_idle.host_wait_ns),
    ("idle: kernel wait", "#f5a3a3", lambda d: d.device_idle.kernel_wait_ns),
    ("idle: other", "#d5dbe1", lambda d: d.device_idle.other_ns),
)


def split_svg(rows: list[tuple[str, Device]], uid: str = "devsplit") -> str | None:
    """`rows`: (rank label, device) of the devices to draw (ranks.device_rows)."""
    if not rows:
        return None
    legend_h = 24
    height = TOP + len(rows) * (BAR_H + GAP) + 36 + legend_h
    x = svg.Scale(0, 1, LEFT, WIDTH - RIGHT)
    first = rows[0][1]
    desc_parts = [f"{name} {fmt_share(share(get(first), first.span_ns))}"
                  for name, _, get in PARTS if get(first)]
    desc = (f"Device time split for {len(rows)} device(s); the first, rank {rows[0][0]}: "
            + ", ".join(desc_parts) + ".")
    out = [svg.svg_open(WIDTH, height, "Device time by kind", desc, uid)]
    # The grid goes under the bars: drawn first.
    axis_y = TOP + len(rows) * (BAR_H + GAP)
    out.append(svg.x_axis(x, [0, 0.25, 0.5, 0.75, 1.0], axis_y, lambda v: f"{v * 100:g}%",
                          grid_top=TOP, title="share of the device span (first to last activity)"))
    y = TOP
    for label, d in rows:
        span = d.span_ns or 0
        # "37" -> "rank 37"; "median: 31" -> "median: rank 31"
        label = label.replace(": ", ": rank ") if ": " in label else f"rank {label}"
        out.append(svg.text(LEFT - 8, y + BAR_H / 2 + 4, label, "lane-label", "end"))
        pos = 0.0
        for name, color, get in PARTS:
            s = share(get(d), span)
            if not s:
                continue
            tip = f"{label}, {name}: {fmt_share(s)} ({fmt_ns(get(d))})"
            out.append(svg.rect(x(pos), y, x(pos + s) - x(pos), BAR_H, color, tip, "part"))
            if x(pos + s) - x(pos) > 44:
                out.append(svg.text((x(pos) + x(pos + s)) / 2, y + BAR_H / 2 + 4,
                                    f"{s * 100:.0f}%", "part-label", "middle"))
            pos += s
        y += BAR_H + GAP
    lx, ly = LEFT, height - 8
    for name, color, _ in PARTS:
        out.append(svg.rect(lx, ly - 10, 12, 12, color))
        out.append(svg.text(lx + 16, ly, name, "legend"))
        lx += 30 + 7 * len(name)
    out.append("</svg>")
    return "".join(out)
