"""Small inline SVGs: a note's 1-hop link neighbourhood and the token-savings chart."""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence
from typing import Any


def neighbourhood(
    center: str,
    forward: list[tuple[str, str]],
    back: list[tuple[str, str]],
    href: Callable[[str], str],
) -> str:
    """Center note in the middle, linked notes on a circle; emerald arrows out, slate arrows in."""
    nodes: dict[str, tuple[str, set[str]]] = {}
    for path, title in forward:
        nodes.setdefault(path, (title, set()))[1].add("out")
    for path, title in back:
        nodes.setdefault(path, (title, set()))[1].add("in")
    size, r = 300, 100  # drawn at the panel's width (260-450 px): 13-unit labels stay >= 11 px
    cx = cy = size / 2
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="graph-svg" viewBox="-40 -10 {size + 80} {size + 20}" '
        f'role="img"><title>links of {html.escape(center)}</title>'
    ]
    items = sorted(nodes.items())[:24]
    for i, (path, (title, dirs)) in enumerate(items):
        a = 2 * math.pi * i / max(len(items), 1) - math.pi / 2
        x, y = cx + r * math.cos(a), cy + r * math.sin(a)
        color = "#22C55E" if "out" in dirs else "#64748B"
        out.append(
            f'<line x1="{cx:.1f}" y1="{cy:.1f}" x2="{x:.1f}" y2="{y:.1f}" stroke="{color}" stroke-width="1.2"/>'
        )
        label = title if len(title) <= 20 else title[:19] + "…"
        out.append(
            f'<a href="{html.escape(href(path))}"><circle cx="{x:.1f}" cy="{y:.1f}" r="6" fill="{color}"/>'
            f'<text x="{x:.1f}" y="{y - 10:.1f}" text-anchor="middle" font-size="13" fill="#CBD5E1" '
            f'font-family="JetBrains Mono, monospace">{html.escape(label)}</text></a>'
        )
    center_label = center if len(center) <= 24 else center[:23] + "…"
    out.append(
        f'<circle cx="{cx}" cy="{cy}" r="9" fill="#22C55E"/><text x="{cx}" y="{cy + 26}" text-anchor="middle" '
        f'font-size="14" fill="#F8FAFC" font-family="JetBrains Mono, monospace">{html.escape(center_label)}</text>'
    )
    out.append("</svg>")
    return "".join(out)


def savings_chart(points: Sequence[dict[str, Any]], width: int = 960, height: int = 300) -> str:
    """Cumulative raw vs summary tokens over the offloads, oldest first, from zero; both lines labelled at
    their end. Drawn at the card's width."""
    pad, right = 56, 150
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart-svg" viewBox="0 0 {width} {height}" '
        f'role="img"><title>tokens over time</title>'
    ]
    font = 'font-size="14" font-family="JetBrains Mono, monospace"'
    if not points:
        out.append(
            f'<text x="{width / 2}" y="{height / 2}" text-anchor="middle" fill="#94A3B8" {font}>'
            "no offloads yet: run k0maru offload -- CMD</text></svg>"
        )
        return "".join(out)
    raw_cum, sum_cum = [0], [0]
    for p in points:
        raw_cum.append(raw_cum[-1] + p["raw_tokens"])
        sum_cum.append(sum_cum[-1] + p["summary_tokens"])
    top = max(raw_cum) or 1
    n = len(raw_cum)

    def xy(i: int, v: float) -> tuple[float, float]:
        return pad + (width - pad - right) * (i / (n - 1)), height - pad - (
            height - 2 * pad
        ) * v / top

    for series, color, name in ((raw_cum, "#94A3B8", "raw"), (sum_cum, "#22C55E", "summary")):
        pts = [xy(i, v) for i, v in enumerate(series)]
        out.append(
            f'<polyline class="series-{name}" points="{" ".join(f"{x:.1f},{y:.1f}" for x, y in pts)}" '
            f'fill="none" stroke="{color}" stroke-width="3"/>'
        )
        x, y = pts[-1]
        out.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{color}"/>'
            f'<text class="label-{name}" x="{x + 10:.1f}" y="{y + 5:.1f}" fill="{color}" {font}>'
            f"{name} {series[-1]:,}</text>"
        )
    out.append(
        f'<line x1="{pad}" y1="{height - pad}" x2="{width - right}" y2="{height - pad}" stroke="#334155"/>'
    )
    out.append(f'<text x="{pad}" y="{pad - 20}" fill="#94A3B8" {font}>tokens, cumulative</text>')
    out.append(
        f'<text x="{width - right}" y="{height - pad + 26}" text-anchor="end" fill="#94A3B8" {font}>'
        f"{len(points)} offload{'s' if len(points) != 1 else ''}</text></svg>"
    )
    return "".join(out)
