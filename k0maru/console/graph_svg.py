"""Small inline SVGs: a note's 1-hop link neighbourhood and the token-savings chart."""

from __future__ import annotations

import html
import math
from typing import Any


def neighbourhood(center: str, forward: list[tuple[str, str]], back: list[tuple[str, str]], href) -> str:
    """Center note in the middle, linked notes on a circle; emerald arrows out, slate arrows in."""
    nodes: dict[str, tuple[str, set[str]]] = {}
    for path, title in forward:
        nodes.setdefault(path, (title, set()))[1].add("out")
    for path, title in back:
        nodes.setdefault(path, (title, set()))[1].add("in")
    size, r = 480, 150
    cx = cy = size / 2
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="graph-svg" viewBox="0 0 {size} {size}" width="{size}" '
           f'height="{size}" role="img"><title>links of {html.escape(center)}</title>']
    items = sorted(nodes.items())[:24]
    for i, (path, (title, dirs)) in enumerate(items):
        a = 2 * math.pi * i / max(len(items), 1) - math.pi / 2
        x, y = cx + r * math.cos(a), cy + r * math.sin(a)
        color = "#22C55E" if "out" in dirs else "#64748B"
        out.append(f'<line x1="{cx:.1f}" y1="{cy:.1f}" x2="{x:.1f}" y2="{y:.1f}" stroke="{color}" stroke-width="1.2"/>')
        label = title if len(title) <= 26 else title[:25] + "…"
        out.append(f'<a href="{html.escape(href(path))}"><circle cx="{x:.1f}" cy="{y:.1f}" r="6" fill="{color}"/>'
                   f'<text x="{x:.1f}" y="{y - 10:.1f}" text-anchor="middle" font-size="10" fill="#CBD5E1" '
                   f'font-family="JetBrains Mono, monospace">{html.escape(label)}</text></a>')
    center_label = center if len(center) <= 30 else center[:29] + "…"
    out.append(f'<circle cx="{cx}" cy="{cy}" r="9" fill="#22C55E"/><text x="{cx}" y="{cy + 24}" text-anchor="middle" '
               f'font-size="11" fill="#F8FAFC" font-family="JetBrains Mono, monospace">{html.escape(center_label)}</text>')
    out.append("</svg>")
    return "".join(out)


def savings_chart(points: list[dict[str, Any]], width: int = 720, height: int = 220) -> str:
    """Cumulative raw vs summary tokens over the offloads, oldest first."""
    pad = 40
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart-svg" viewBox="0 0 {width} {height}" width="{width}" '
           f'height="{height}" role="img"><title>tokens over time</title>']
    if not points:
        out.append(f'<text x="{width / 2}" y="{height / 2}" text-anchor="middle" fill="#94A3B8">no offloads yet</text></svg>')
        return "".join(out)
    raw_cum, sum_cum = [], []
    r = s = 0
    for p in points:
        r += p["raw_tokens"]
        s += p["summary_tokens"]
        raw_cum.append(r)
        sum_cum.append(s)
    top = max(raw_cum) or 1
    n = len(points)

    def xy(i: int, v: float) -> tuple[float, float]:
        x = pad + (width - 2 * pad) * (i / max(n - 1, 1))
        return x, height - pad - (height - 2 * pad) * v / top

    for series, color, name in ((raw_cum, "#64748B", "raw"), (sum_cum, "#22C55E", "summary")):
        pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in (xy(i, v) for i, v in enumerate(series)))
        out.append(f'<polyline class="series-{name}" points="{pts}" fill="none" stroke="{color}" stroke-width="2"/>')
    out.append(f'<line x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}" stroke="#334155"/>')
    out.append(f'<text x="{pad}" y="{pad - 12}" fill="#94A3B8" font-size="11" font-family="JetBrains Mono, monospace">'
               f'{top:,} tokens raw (cumulative)</text>')
    out.append(f'<text x="{width - pad}" y="{height - 12}" text-anchor="end" fill="#94A3B8" font-size="11" '
               f'font-family="JetBrains Mono, monospace">{n} offloads</text></svg>')
    return "".join(out)
