"""Render the Mermaid flowchart subset k0maru emits to inline SVG, on the server, with no JS
library.

Supported: `flowchart TD|LR`, nodes `id["label"]` / `id[label]` / bare `id`, edges `a --> b` (either
side may define its node). Layout: nodes are layered by their longest path from a root; each layer
is one row (TD) or column (LR). Labels are escaped; Mermaid entities (#quot; #91; #93;) are decoded
first."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from k0maru.text import shorten

_NODE = re.compile(r'^\s*([A-Za-z_][\w-]*)\s*(?:\[\s*"(.*?)"\s*\]|\[\s*([^\]"]*?)\s*\])?\s*$')
_ENTITY = {"#quot;": '"', "#91;": "[", "#93;": "]", "#35;": "#", "#59;": ";"}
CHAR_W = 7.2
BOX_H = 34
GAP_X = 28
GAP_Y = 46
PAD = 16
MAX_LABEL = 64
# the characters as written: JetBrains Mono would draw `->` as an arrow and `|-` as a turnstile
NO_LIGATURES = (
    "font-variant-ligatures:none;font-feature-settings:'liga' 0,'clig' 0,'calt' 0,'dlig' 0"
)


class MermaidError(ValueError):
    pass


@dataclass
class Graph:
    direction: str = "TD"
    labels: dict[str, str] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    edges: list[tuple[str, str]] = field(default_factory=list)


def _decode(label: str) -> str:
    for k, v in _ENTITY.items():
        label = label.replace(k, v)
    return label


def _node(text: str, g: Graph) -> str:
    m = _NODE.match(text)
    if not m:
        raise MermaidError(f"unsupported node syntax: {text.strip()[:60]!r}")
    node_id = m.group(1)
    label = m.group(2) if m.group(2) is not None else m.group(3)
    if node_id not in g.labels:
        g.order.append(node_id)
        g.labels[node_id] = node_id
    if label is not None:
        g.labels[node_id] = _decode(label)
    return node_id


def parse(source: str) -> Graph:
    lines = [
        ln for ln in source.strip().splitlines() if ln.strip() and not ln.strip().startswith("%%")
    ]
    if not lines:
        raise MermaidError("empty diagram")
    head = lines[0].split()
    if head[0] not in ("flowchart", "graph") or (
        len(head) > 1 and head[1] not in ("TD", "TB", "LR")
    ):
        raise MermaidError(f"only 'flowchart TD|LR' is supported, got {lines[0].strip()[:40]!r}")
    g = Graph(direction="LR" if len(head) > 1 and head[1] == "LR" else "TD")
    for line in lines[1:]:
        if "-->" in line:
            parts = line.split("-->")
            ids = [_node(p, g) for p in parts]
            g.edges.extend(zip(ids, ids[1:], strict=False))
        else:
            _node(line, g)
    return g


def _layers(g: Graph) -> dict[str, int]:
    depth = {n: 0 for n in g.order}
    for _ in range(len(g.order)):  # longest path, bounded (cycles just stop growing)
        changed = False
        for a, b in g.edges:
            if depth[b] < depth[a] + 1 and depth[a] + 1 < len(g.order):
                depth[b] = depth[a] + 1
                changed = True
        if not changed:
            break
    return depth


Placed = tuple[dict[str, tuple[float, float]], float, float]  # each box's corner, width, height


def _place_rows(layers: dict[int, list[str]], width: dict[str, float]) -> Placed:
    """Top-down: one centred row of boxes per layer."""
    pos: dict[str, tuple[float, float]] = {}
    row_w = {d: sum(width[n] for n in ns) + GAP_X * (len(ns) - 1) for d, ns in layers.items()}
    total_w = max(row_w.values()) + 2 * PAD
    for d, ns in sorted(layers.items()):
        x = (total_w - row_w[d]) / 2
        for n in ns:
            pos[n] = (x, PAD + d * (BOX_H + GAP_Y))
            x += width[n] + GAP_X
    return pos, total_w, PAD * 2 + len(layers) * BOX_H + (len(layers) - 1) * GAP_Y


def _place_columns(layers: dict[int, list[str]], width: dict[str, float]) -> Placed:
    """Left to right: one column of boxes per layer."""
    pos: dict[str, tuple[float, float]] = {}
    col_w = {d: max(width[n] for n in ns) for d, ns in layers.items()}
    x = float(PAD)
    xs: dict[int, float] = {}
    for d in sorted(layers):
        xs[d] = x
        x += col_w[d] + GAP_X * 2
    for d, ns in layers.items():
        for i, n in enumerate(ns):
            pos[n] = (xs[d], PAD + i * (BOX_H + GAP_Y / 2))
    total_h = PAD * 2 + max(len(ns) for ns in layers.values()) * (BOX_H + GAP_Y / 2)
    return pos, x - GAP_X * 2 + PAD, total_h


def render(source: str, title: str = "flowchart") -> str:
    g = parse(source)
    depth = _layers(g)
    layers: dict[int, list[str]] = {}
    for n in g.order:
        layers.setdefault(depth[n], []).append(n)
    label = {n: shorten(g.labels[n], MAX_LABEL) for n in g.order}
    width = {n: max(60.0, len(label[n]) * CHAR_W + 20) for n in g.order}
    place = _place_rows if g.direction == "TD" else _place_columns
    pos, total_w, total_h = place(layers, width)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="mermaid-svg" role="img" viewBox="0 0 {total_w:.0f} {total_h:.0f}" '
        f'width="{total_w:.0f}" height="{total_h:.0f}"><title>{html.escape(title)}</title>',
        '<defs><marker id="k0-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
        'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#22C55E"/></marker></defs>',
    ]
    for a, b in g.edges:
        ax, ay = pos[a]
        bx, by = pos[b]
        if g.direction == "TD":
            x1, y1, x2, y2 = ax + width[a] / 2, ay + BOX_H, bx + width[b] / 2, by
        else:
            x1, y1, x2, y2 = ax + width[a], ay + BOX_H / 2, bx, by + BOX_H / 2
        out.append(
            f'<line class="edge" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="#22C55E" '
            'stroke-width="1.5" marker-end="url(#k0-arrow)"/>'
        )
    for n in g.order:
        x, y = pos[n]
        out.append(
            f'<g class="node" data-id="{html.escape(n)}"><rect x="{x:.1f}" y="{y:.1f}" width="{width[n]:.1f}" '
            f'height="{BOX_H}" rx="6" fill="#1E293B" stroke="#22C55E" stroke-width="1.2"/>'
            f'<text x="{x + width[n] / 2:.1f}" y="{y + BOX_H / 2 + 4:.1f}" text-anchor="middle" '
            f'font-family="JetBrains Mono, monospace" font-size="12" fill="#E2E8F0" style="{NO_LIGATURES}">'
            f"{html.escape(label[n])}</text></g>"
        )
    out.append("</svg>")
    return "".join(out)
