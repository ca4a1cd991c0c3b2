"""Small inline SVGs: a note's 1-hop link neighbourhood and the token-savings chart."""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence
from typing import Any

from k0maru.text import shorten


def neighbourhood(
    center: str,
    forward: list[tuple[str, str]],
    back: list[tuple[str, str]],
    href: Callable[[str], str],
) -> str:
    """The note in the middle, notes linking to it in a column on the left (slate arrows in), notes
    it links to on the right (emerald arrows out): one row per neighbour, labels anchored away from
    the middle, so no two labels can overlap. Drawn at the panel's width (>= 340 px): 16-unit labels
    in a 480-unit view stay >= 11 px."""
    outgoing = dict(forward)
    incoming = {p: t for p, t in back if p not in outgoing}
    rows = max(len(outgoing), len(incoming), 1)
    width, row_h, pad = 480, 30, 24
    height = pad * 2 + rows * row_h + 30
    cx, cy = width / 2, pad + rows * row_h / 2
    font = 'font-family="JetBrains Mono, monospace" font-size="16"'
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="graph-svg" viewBox="0 0 {width} {height}" '
        f'role="group"><title>links of {html.escape(center)}</title>'
    ]
    for side, items, color, x, anchor in (
        ("in", sorted(incoming.items(), key=lambda i: i[1].lower()), "#64748B", 150, "end"),
        ("out", sorted(outgoing.items(), key=lambda i: i[1].lower()), "#22C55E", 330, "start"),
    ):
        top = cy - (len(items) - 1) * row_h / 2
        for i, (path, title) in enumerate(items):
            y = top + i * row_h
            tx = x - 12 if anchor == "end" else x + 12
            out.append(
                f'<line class="edge-{side}" x1="{cx:.1f}" y1="{cy:.1f}" x2="{x}" y2="{y:.1f}" '
                f'stroke="{color}" stroke-width="1.2"/>'
                f'<a href="{html.escape(href(path))}"><circle cx="{x}" cy="{y:.1f}" r="5" fill="{color}"/>'
                f'<text x="{tx}" y="{y + 5:.1f}" text-anchor="{anchor}" fill="#CBD5E1" {font}>'
                f"{html.escape(shorten(title or path, 14))}</text></a>"
            )
    out.append(
        f'<circle cx="{cx}" cy="{cy:.1f}" r="8" fill="#22C55E"/><text x="{cx}" y="{height - 12}" '
        f'text-anchor="middle" fill="#F8FAFC" {font}>{html.escape(shorten(center, 24))}</text></svg>'
    )
    return "".join(out)


def _nice_step(top: float, ticks: int = 4) -> float:
    """A round tick step (1, 2 or 5 x 10^n) that splits 0..top into about `ticks` parts."""
    raw = max(top / ticks, 1)
    power = 10 ** math.floor(math.log10(raw))
    return float(next(m * power for m in (1, 2, 5, 10) if m * power >= raw))


def savings_chart(points: Sequence[dict[str, Any]], width: int = 960, height: int = 340) -> str:
    """Cumulative raw vs summary tokens over the offloads, oldest first, from zero, on labelled axes
    (tokens with thousands separators, offload number); both lines labelled at their end."""
    left, bottom, top_pad, right = 96, 64, 40, 170
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart-svg" viewBox="0 0 {width} {height}" '
        f'role="img"><title>tokens over time</title>'
    ]
    font = 'font-size="15" font-family="JetBrains Mono, monospace"'
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
    step = _nice_step(max(raw_cum) or 1)
    top = step * math.ceil((max(raw_cum) or 1) / step)
    n = len(raw_cum)
    x0, x1, y0, y1 = left, width - right, height - bottom, top_pad

    def xy(i: int, v: float) -> tuple[float, float]:
        return x0 + (x1 - x0) * (i / (n - 1)), y0 - (y0 - y1) * v / top

    axis = 'stroke="#475569" stroke-width="1"'
    out.append(f'<g class="axis axis-y"><line x1="{x0}" y1="{y0}" x2="{x0}" y2="{y1}" {axis}/>')
    tick = 0.0
    while tick <= top + 1e-9:
        _, y = xy(0, tick)
        out.append(
            f'<line x1="{x0 - 6}" y1="{y:.1f}" x2="{x1}" y2="{y:.1f}" stroke="#1E293B"/>'
            f'<text class="tick" x="{x0 - 10}" y="{y + 5:.1f}" text-anchor="end" fill="#94A3B8" {font}>'
            f"{int(tick):,}</text>"
        )
        tick += step
    out.append("</g>")
    out.append(f'<g class="axis axis-x"><line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y0}" {axis}/>')
    every = max(1, math.ceil((n - 1) / 8))
    for i in range(0, n, every):
        x, _ = xy(i, 0)
        out.append(
            f'<line x1="{x:.1f}" y1="{y0}" x2="{x:.1f}" y2="{y0 + 6}" {axis}/>'
            f'<text class="tick" x="{x:.1f}" y="{y0 + 24}" text-anchor="middle" fill="#94A3B8" {font}>'
            f"{i}</text>"
        )
    out.append("</g>")
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
        f'<text class="axis-title" x="{x0}" y="{y1 - 16}" fill="#94A3B8" {font}>tokens, cumulative</text>'
        f'<text class="axis-title" x="{(x0 + x1) / 2:.0f}" y="{height - 12}" text-anchor="middle" '
        f'fill="#94A3B8" {font}>offloads, oldest first ({len(points):,} in all)</text></svg>'
    )
    return "".join(out)
