"""The MCP tools: one thin function each over the service, registered with `@tool`.

A tool's first parameter is the `Service`; the rest, its annotations and its docstring become the
tool's input schema and description. `when` is the clause the server's instructions use for it, and
`text` renders the result as the text block (the complete answer, for hosts that pass only text).
Adding a tool is adding one function here (and its test)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Field

from k0maru.limits import LOADOUT_BUDGET
from k0maru.mcp import render
from k0maru.service.models import (
    Filters,
    FlushOutcome,
    Loadout,
    LogNodeList,
    LogNodeView,
    NoteExcerpt,
    RecallResult,
    SkillCardResult,
)
from k0maru.service.operations import Service
from k0maru.text import shorten


@dataclass(frozen=True, slots=True)
class ToolSpec:
    fn: Callable[..., Any]
    title: str
    when: str
    text: Callable[[Any], str]  # the result as the text block (mcp/render.py)
    read_only: bool

    @property
    def name(self) -> str:
        return self.fn.__name__

    @property
    def description(self) -> str:
        """The docstring as the agent reads it: each paragraph one line, without the source's
        indentation and line breaks, which would cost tokens and say nothing."""
        paragraphs = re.split(r"\n\s*\n", self.fn.__doc__ or "")
        return "\n\n".join(" ".join(p.split()) for p in paragraphs if p.strip())

    def annotations(self) -> dict[str, bool]:
        """MCP tool annotations: everything acts on this vault only (closed world); nothing deletes;
        every tool is idempotent (a host may send a call again)."""
        out = {"readOnlyHint": self.read_only, "idempotentHint": True}
        if not self.read_only:
            out["destructiveHint"] = False
        out["openWorldHint"] = False
        return out


TOOLS: list[ToolSpec] = []


def tool(
    title: str,
    when: str,
    text: Callable[[Any], str],
    read_only: bool = True,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        TOOLS.append(ToolSpec(fn, title, when, text, read_only))
        return fn

    return register


@tool(
    "Project loadout",
    "when starting on the project",
    render.loadout_text,
)
def get_project_loadout(
    service: Service,
    token_budget: Annotated[
        int, Field(ge=200, le=32000, description="maximum tokens to return")
    ] = LOADOUT_BUDGET,
    focus: Annotated[
        str | None,
        Field(
            max_length=500,
            description="a task or a path you are about to work on; what concerns it comes first",
        ),
    ] = None,
) -> Loadout:
    """Start here when taking over or resuming work on this project: what its people tell a
    newcomer. The agent files (AGENTS.md, CLAUDE.md, copilot instructions, cursor rules), the
    rules and commands of its guides (CONTRIBUTING, development, testing, style) and README, the
    test, lint and build commands its manifests and CI run, and the decisions in force, each
    section naming its file; the last says what was left out. Use for "what are the core
    conventions?", "how do I test this?", "onboard me"; pass `focus` ("I'm changing src/auth/")
    to get what concerns that area first."""
    return service.loadout(token_budget, focus)


RECALL_MAX_BUDGET = 32000


def recall_text(result: RecallResult) -> str:
    """recall_memory's text block, naming the tool that reads a hit whole."""
    return render.recall_text(result, read_note.__name__, RECALL_MAX_BUDGET)


@tool("Recall memory", "before solving a problem that may have been seen before", recall_text)
def recall_memory(  # noqa: PLR0913 - a tool's parameters are its input schema
    service: Service,
    query: Annotated[
        str,
        Field(
            min_length=1,
            description="words, error codes or symbols, e.g. 'SQLITE_BUSY during backup'",
        ),
    ],
    limit: Annotated[int, Field(ge=1, le=50, description="number of notes to return")] = 8,
    mode: Annotated[
        Literal["hybrid", "bm25", "vector"], Field(description="retrieval channel")
    ] = "hybrid",
    explain: Annotated[
        bool,
        Field(description="add per-channel ranks, cosines and each channel's part of the score"),
    ] = False,
    path: Annotated[
        str | None,
        Field(max_length=300, description="only notes under this folder, e.g. 'docs/adr/'"),
    ] = None,
    tag: Annotated[
        str | None,
        Field(max_length=64, description="only notes with this tag (nested tags included)"),
    ] = None,
    kind: Annotated[
        str | None,
        Field(
            max_length=32,
            description="only notes of this kind: adr, decision, card, log, skill, or another "
            "kind the vault's notes give (an unknown kind is refused with the list)",
        ),
    ] = None,
    since: Annotated[
        str | None,
        Field(max_length=32, description="only notes dated on/after: YYYY-MM-DD or 30d, 2w, 6m"),
    ] = None,
    until: Annotated[
        str | None,
        Field(max_length=32, description="only notes dated on/before: YYYY-MM-DD or 30d"),
    ] = None,
    lang: Annotated[
        str | None,
        Field(max_length=16, description="only notes in this language: an ISO code such as en, es"),
    ] = None,
    min_score: Annotated[
        float | None,
        Field(ge=0, description="leave out hits scoring below this (on the mode's scale)"),
    ] = None,
    token_budget: Annotated[
        int,
        Field(
            ge=100,
            le=RECALL_MAX_BUDGET,
            description="most tokens the answer may cost (o200k, either part)",
        ),
    ] = 1000,
) -> RecallResult:
    """Search the project's memory (decisions, ADRs, incident logs, cards) with hybrid keyword +
    semantic recall. Use before fixing an error or making a design choice: "have we seen this error
    before?", "why did we choose X?", "what do we know about E0502 / SQLITE_BUSY?", "the decisions
    of the last month about caching" (kind=decision, since=30d). Each hit has the note's path,
    title, score and the passage that matched, the whole answer within `token_budget` (what was cut
    to fit it is said, with the call that gets it); `explain` adds how it was ranked. Scores compare
    within one mode: hybrid is the weighted sum of the two channels, bm25 is relative to the best
    hit (1), vector is (cosine + 1) / 2. A query nothing in the vault supports gets no hits and one
    line saying so."""
    from k0maru.llm_tokens import count_tokens
    from k0maru.service.operations import answer_tokens

    def cost(answer: RecallResult, over: int | None) -> int:  # each part is held to the budget
        tokens = answer_tokens(answer)
        if over is not None and tokens > over:
            return tokens
        return max(tokens, count_tokens(recall_text(answer)))

    return service.recall(
        query,
        limit,
        mode,
        explain,
        filters=Filters(path, tag, kind, since, until, lang),
        token_budget=token_budget,
        min_score=min_score,
        cost=cost,
    )


@tool(
    "Inspect offloaded log",
    "to read a long offloaded log: its summary, a line range or the lines matching a pattern",
    render.log_view_text,
)
def inspect_log_node(  # noqa: PLR0913 - a tool's parameters are its input schema
    service: Service,
    node_id: Annotated[
        str, Field(min_length=1, description="node id printed by `k0maru offload` (e.g. 3fa2c1d0)")
    ],
    lines: Annotated[
        str | None,
        Field(description="1-based line range 'A:B' (with `pattern`: the range searched)"),
    ] = None,
    pattern: Annotated[
        str | None, Field(description="regular expression to find, with context lines")
    ] = None,
    fixed: Annotated[
        bool, Field(description="match `pattern` as plain text, not a regular expression")
    ] = False,
    context: Annotated[int, Field(ge=0, le=50)] = 3,
    max_lines: Annotated[int, Field(ge=1, le=400)] = 120,
    skip: Annotated[
        int, Field(ge=0, description="with `pattern`: matches to pass over (the next page)")
    ] = 0,
) -> LogNodeView:
    """Read a slice of a long build/test/CI log that `k0maru offload` stored: its summary, a line
    range, or the lines matching a pattern with context (within a line range when both are given;
    `skip` pages on through the matches). Use for "show me the stack of that failing test", "what
    happened around line 300?", "grep the log for E0502"."""
    view = service.log_view(node_id, lines, pattern, context, max_lines, fixed=fixed, skip=skip)
    if view.summary is None:
        return view
    first = view.error_codes[0] if view.error_codes else None
    return view.but(
        summary=render.agent_summary(view.summary, view.node_id, first, inspect_log_node.__name__),
        mermaid=None,
    )


@tool("Flush session note", "to save a decision or finding", render.flush_text, read_only=False)
def flush_session(
    service: Service,
    title: Annotated[str, Field(min_length=1, description="note title")],
    body: Annotated[str, Field(min_length=1, description="Markdown body of the note")],
    kind: Annotated[
        Literal["adr", "decision", "card", "log", "skill"], Field(description="kind of note")
    ] = "decision",
    tags: Annotated[list[str], Field(description="tags")] = [],  # noqa: B006 - pydantic copies defaults
    related_notes: Annotated[
        list[str],
        Field(
            description="existing notes to link: file name, vault path or title (as in recall hits)"
        ),
    ] = [],  # noqa: B006
    date: Annotated[
        str | None, Field(description="the note's date, YYYY-MM-DD (default today)")
    ] = None,
    folder: Annotated[
        str | None,
        Field(
            max_length=200,
            description="which of the kind's parallel folders: a status, group or component "
            "(e.g. 'accepted', 'sig-storage'); default: the one the records start in, else the "
            "closest by title and tags",
        ),
    ] = None,
) -> FlushOutcome:
    """Save what was just decided or learned as a note in the vault, where the team's conventions
    put that kind of note, written like the vault's own records (name, number, heading, metadata,
    sections; body sections fill the template's) with links to related notes. Idempotent: the same
    note twice is `up_to_date`; a changed one gets the next number (numbered logs) or a -v2 file,
    never overwriting; a changed decision supersedes the one before it (both linked). Use for
    "save the lock-renewal design we just agreed", "record this decision", "write an ADR for
    this"."""
    return service.flush(kind, title, body, tags, related_notes, date, folder)


@tool(
    "Distill skill from a failure",
    "to turn a failure into a reusable runbook",
    render.distill_text,
    read_only=False,
)
def distill_session_skill(
    service: Service,
    trace: Annotated[
        str | None, Field(description="failure text: compiler error, traceback, test output")
    ] = None,
    node_id: Annotated[str | None, Field(description="or an offloaded log node id")] = None,
    export_hermes: Annotated[
        bool, Field(description="also export a Hermes/Agent Skills SKILL.md")
    ] = False,
) -> SkillCardResult:
    """Turn a failure (compiler error, traceback, failing test, sanitizer report) into a reusable
    skill card with Symptoms, Diagnosis path and Fix, linked to related notes; optionally exported
    as a Hermes agent skill. Use for "turn this compiler error into a runbook", "remember how we
    fixed this"."""
    return service.distill(trace, node_id, "an agent session", "" if export_hermes else None)


@tool(
    "List offloaded logs",
    "to find an offloaded log again (a node id lost from context)",
    render.log_list_text,
)
def list_log_nodes(
    service: Service,
    command: Annotated[
        str | None, Field(max_length=200, description="only commands containing this text")
    ] = None,
    failed: Annotated[
        bool | None,
        Field(description="true: only non-zero exits; false: only exit 0; unset: all"),
    ] = None,
    since: Annotated[
        str | None,
        Field(max_length=16, description="only logs newer than this age: 30m, 2h, 3d, 1w"),
    ] = None,
    limit: Annotated[int, Field(ge=1, le=100, description="most logs to list")] = 10,
) -> LogNodeList:
    """List the build/test/CI logs `k0maru offload` stored, newest first: node id, age, command,
    exit status, size and the first error. Use for "which tests failed earlier?", "the id of the
    last cargo build log", then read one with inspect_log_node."""
    import time

    from k0maru.mcp.agent_views import age, age_seconds
    from k0maru.service.models import LogNodeBrief

    newer_than = time.time() - age_seconds(since) if since else None
    needle = (command or "").lower()
    picked = [
        n
        for n in service.log_list(limit=10_000)
        if (not needle or needle in n.command.lower())
        and (failed is None or (n.exit_code not in (0, None)) == failed)
        and (newer_than is None or n.created_at >= newer_than)
    ]
    return LogNodeList(
        nodes=[
            LogNodeBrief(
                node_id=n.node_id,
                age=age(n.created_at),
                command=shorten(n.command, 160),
                exit_code=n.exit_code,
                raw_lines=n.raw_lines,
                raw_tokens=n.raw_tokens,
                summary_tokens=n.summary_tokens,
                error_codes=list(n.error_codes[:4]),
                first_location=n.first_location,
            )
            for n in picked[:limit]
        ],
        more=max(0, len(picked) - limit),
    )


@tool("Read note", "to read a note (or a part of it) that a hit points to", render.note_text)
def read_note(
    service: Service,
    path: Annotated[
        str, Field(min_length=1, max_length=500, description="vault-relative path, as in hits")
    ],
    lines: Annotated[
        str | None, Field(max_length=32, description="1-based line range 'A:B' (or 'A:')")
    ] = None,
    heading: Annotated[
        str | None,
        Field(max_length=200, description="only the section under this heading (text or slug)"),
    ] = None,
    token_budget: Annotated[
        int, Field(ge=100, le=32000, description="most tokens the answer may cost")
    ] = 2000,
) -> NoteExcerpt:
    """Read a note of the vault by its path: all of it, a line range, or the section under one
    heading, within a token budget. Use after recall_memory to read a whole hit ("path:12-30" in a
    hit is lines="12:30"), or for "show me ADR 0002"."""
    from k0maru.mcp.agent_views import note_excerpt

    return note_excerpt(path, service.read_note(path).text, lines, heading, token_budget)


# named by the instructions and hints
LOG_TOOLS = (inspect_log_node.__name__, list_log_nodes.__name__)
NOTE_FINDER = recall_memory.__name__
