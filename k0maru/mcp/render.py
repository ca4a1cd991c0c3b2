"""Each tool result as the compact text block a model reads, note-borne text (titles, paths,
snippets) with control, bidi and zero-width characters escaped (`text.visible`): a path shown opens
again with `read_note`.

Hosts pass one part of a tool result to the model: some the structured content (serialised as JSON),
others only the text content (docs/mcp.md says which). So the text block is the complete answer, not
a summary of it: a model that sees only the text learns all that the structured content says."""

from __future__ import annotations

import json
import re
from typing import Any

from k0maru.service.models import (
    FlushOutcome,
    Loadout,
    LogNodeList,
    LogNodeView,
    NoteExcerpt,
    RecallHit,
    RecallResult,
    SkillCardResult,
)
from k0maru.text import visible

MERMAID_BLOCK = re.compile(r"\n?```mermaid\n.*?\n```", re.DOTALL)
CLI_HINT = re.compile(r"^inspect: k0maru log show .*\n?", re.MULTILINE)


def recall_text(r: RecallResult, reader: str = "read_note", most: int = 32000) -> str:
    """The hits, or one line when there are none (its warnings say why); what was cut to fit the
    token budget, with the calls that get it (`reader` reads a note, `most` is the largest
    budget)."""
    head = f"{len(r.hits)} note(s) for {r.query!r} ({r.mode})"
    if not r.hits:
        return "; ".join(r.warnings) or head
    if r.bm25_weight is not None:
        head += f", pool {r.pool}, bm25 weight {r.bm25_weight:.2f}"
    if r.cosine_floor is not None:  # the setting's name: what changes it
        head += f", cosine floor {r.cosine_floor:g} (min_cosine: a vector hit below adds nothing)"
    lines = [head]
    for rank, h in enumerate(r.hits, 1):
        where = h.path + (f":{h.lines}" if h.lines else "")
        heading = f" · section: {h.heading}" if h.heading else ""
        lines.append(
            visible(f"{rank}. {h.title} · {where}{heading} · {r.mode} score {h.score:.4g}")
        )
        if h.bm25_rank is not None or h.vector_rank is not None:
            lines.append("   " + _explain(h))
        lines.append("   " + visible(h.snippet, keep="\n").replace("\n", "\n   "))
        lines += [visible(f"   {x}") for x in _asides(h)]
    lines += [f"note: {w}" for w in r.warnings]
    if r.left_out or r.passages_cut:
        lines.append(_budget_note(r, reader, most))
    return "\n".join(lines)


def _asides(h: RecallHit) -> list[str]:
    """A hit's lines below its passage: its copies, its translations, what supersedes it."""
    out = [f"also at: {', '.join(h.also_at)}"] if h.also_at else []
    out += [f"also in: {', '.join(h.also_in)}"] if h.also_in else []
    if h.superseded_by is not None:
        out.append("superseded" + (f" by {h.superseded_by}" if h.superseded_by else ""))
    return out


def _budget_note(r: RecallResult, reader: str, most: int) -> str:
    """What was cut to fit the token budget and how to get it."""
    cut = []
    if r.left_out:
        cut.append(f"the {r.left_out} lower hit(s) left out")
    if r.passages_cut:
        cut.append(f"{r.passages_cut} passage(s) shortened (ending …)")
    whole = r.whole_tokens or 0
    more = (
        f"token_budget={whole} returns them whole"
        if whole <= most
        else f"a smaller limit or a narrower query fits more whole (all would cost {whole:,})"
    )
    read = f'{reader}(path, lines="A:B") reads a hit whole'
    return f"cut to fit the token budget: {' and '.join(cut)}; {more}, or {read}"


def _explain(h: Any) -> str:
    parts = []
    if h.bm25_rank is not None:
        parts.append(f"bm25 #{h.bm25_rank} ({h.bm25_score:.4g})")
    if h.vector_rank is not None:
        parts.append(f"vector #{h.vector_rank} (cosine {h.cosine:.3f})")
    if h.bm25_part is not None:
        parts.append(f"parts bm25 {h.bm25_part:.4g} vector {h.vector_part or 0:.4g}")
    if h.vector_part_of:
        parts.append(f"no vector yet: vector part of [[{h.vector_part_of}]], nearest in BM25")
    if h.graph_boost:
        parts.append(f"graph +{h.graph_boost:.4g} via {', '.join(h.boost_links)}")
    return "; ".join(parts)


def loadout_text(r: Loadout) -> str:
    return visible(r.text(), keep="\n")


def agent_summary(summary: str, node_id: str, first_code: str | None, reader: str) -> str:
    """An offload summary as an agent needs it: without the diagram (a picture for people) and with
    the MCP call that reads on instead of the terminal command."""
    text = CLI_HINT.sub("", MERMAID_BLOCK.sub("", summary)).rstrip()
    hint = (
        f'{reader}(node_id="{node_id}", pattern={json.dumps(first_code)}, fixed=true)'
        if first_code
        else f'{reader}(node_id="{node_id}", lines="1:40")'
    )
    return f"{text}\nread on: {hint}"


def log_view_text(v: LogNodeView) -> str:
    if v.summary is not None:
        return v.summary
    status = f"exit {v.exit_code}" if v.exit_code is not None else "from stdin"
    head = f"log {v.node_id} ({v.raw_lines:,} lines, {status}): {v.command[:120]}"
    if v.matches is not None:
        head += "\n" + _matches_line(v)
    body = [
        f"{'>' if line.match else ' ' if v.matches is not None else ''}{line.n}: {line.text}"
        for line in v.lines
    ]
    if v.next_skip is not None:
        tail = [f"(more matches: call again with skip={v.next_skip})"]
    elif v.truncated:
        tail = ["(more exist: narrow the range or the pattern)"]
    else:
        tail = []
    return "\n".join([head, *body, *tail])


def _matches_line(v: LogNodeView) -> str:
    """How many lines match (in the range asked for) and which of them are shown."""
    where = f" in lines {v.lines_asked}" if v.lines_asked else ""
    shown = sum(1 for line in v.lines if line.match)
    if shown:
        page = f"matches {v.skipped + 1}-{v.skipped + shown} shown"
    else:
        page = f"none shown (skip={v.skipped})" if v.matches else "none"
    return f"{v.matches} match(es){where}; {page}; '>' marks a matching line"


def log_list_text(r: LogNodeList) -> str:
    if not r.nodes:
        return "no offloaded log matches"
    lines = [f"{len(r.nodes)} offloaded log(s), newest first:"]
    for n in r.nodes:
        status = f"exit {n.exit_code}" if n.exit_code is not None else "stdin"
        found = ", ".join(n.error_codes[:4]) + (
            f" at {n.first_location}" if n.first_location else ""
        )
        lines.append(
            f"{n.node_id} · {n.age} ago · {status} · {n.command} · {n.raw_lines:,} lines, "
            f"{n.raw_tokens:,} -> {n.summary_tokens:,} tokens" + (f" · {found}" if found else "")
        )
    if r.more:
        lines.append(f"(+{r.more} older: narrow with command, failed or since)")
    return "\n".join(lines)


def note_text(r: NoteExcerpt) -> str:
    head = visible(
        f"{r.path} lines {r.lines} of {r.total_lines}"
        + (f" · section: {r.heading}" if r.heading else "")
    )
    tail = "\n(cut to the token budget: ask for a later line range)" if r.truncated else ""
    body = visible(r.text, keep="\n")
    return f"{head}\n{body}{tail}"


def flush_text(r: FlushOutcome) -> str:
    out = f"{r.outcome}: {r.path} ({r.kind})"
    if r.linked:
        out += "; linked: " + ", ".join(r.linked)
    if r.unresolved:
        out += "; unresolved links: " + ", ".join(r.unresolved)
    out = visible(out)
    for line in r.warnings:
        out += f"\nwarning: {line}"
    return out


def distill_text(r: SkillCardResult) -> str:
    head = f"skill card {r.note_outcome}: {r.note_path}"
    if r.hermes_path:
        head += f"; Hermes skill {r.hermes_outcome}: {r.hermes_path}"
    return f"{head}\n\n{r.card_markdown}"
