"""The MCP tools: one thin function each over the service, registered with `@tool`.

A tool's first parameter is the `Service`; the rest, its annotations and its docstring become the
tool's input schema and description. `when` is the clause the server's instructions use for it, and
`brief` renders the short text block sent beside the structured result. Adding a tool is adding one
function here (and its test)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Field

from k0maru.service.models import (
    Filters,
    FlushOutcome,
    Loadout,
    LogNodeView,
    RecallResult,
    SkillCardResult,
)
from k0maru.service.operations import Service


@dataclass(frozen=True, slots=True)
class ToolSpec:
    fn: Callable[..., Any]
    title: str
    when: str
    brief: Callable[[Any], str]

    @property
    def name(self) -> str:
        return self.fn.__name__


TOOLS: list[ToolSpec] = []


def tool(
    title: str, when: str, brief: Callable[[Any], str]
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        TOOLS.append(ToolSpec(fn, title, when, brief))
        return fn

    return register


BRIEF_TOKENS = 40  # the one-line text block beside a recall answer, kept inside its token budget


def _brief_recall(r: RecallResult) -> str:
    if not r.hits:
        return ("; ".join(r.warnings) or f"no note answers {r.query[:80]!r}")[:160]
    best = r.hits[0]
    return f"{len(r.hits)} note(s); best: {best.title[:60]} ({best.path[-60:]})"


def _brief_log(v: LogNodeView) -> str:
    if v.summary is not None:
        return v.summary
    shown = f"{len(v.lines)} line(s)" + (
        f", {v.matches} match(es)" if v.matches is not None else ""
    )
    return f"log {v.node_id}: {shown}" + (
        " (more exist: narrow the range or pattern)" if v.truncated else ""
    )


@tool(
    "Project loadout",
    "when starting on the project",
    lambda r: f"loadout: {len(r.sections)} section(s), {r.tokens_used} tokens",
)
def get_project_loadout(
    service: Service,
    token_budget: Annotated[
        int, Field(ge=200, le=32000, description="maximum tokens to return")
    ] = 2000,
) -> Loadout:
    """Start here when taking over or resuming work on this project: returns the team's explicit rules
    (AGENTS.md, CONVENTIONS.md, .k0maru/rules.md), where notes of each kind live, the most linked hub
    notes and the latest ADRs, within a token budget. Use for "what are the core conventions?",
    "how does this project work?", "onboard me"."""
    return service.loadout(token_budget)


@tool("Recall memory", "before solving a problem that may have been seen before", _brief_recall)
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
            max_length=32, description="only notes of this kind: adr, decision, card, log, skill"
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
    token_budget: Annotated[
        int, Field(ge=100, le=32000, description="most tokens the answer may cost")
    ] = 1000,
) -> RecallResult:
    """Search the project's memory (decisions, ADRs, incident logs, cards) with hybrid keyword + semantic
    recall. Use before fixing an error or making a design choice: "have we seen this error before?",
    "why did we choose X?", "what do we know about E0502 / SQLITE_BUSY?", "the decisions of the last month
    about caching" (kind=decision, since=30d). Each hit has the note's path, title, score and the passage
    that matched, the whole answer within `token_budget`; `explain` adds how it was ranked. A query nothing
    in the vault supports gets no hits and one line saying so."""
    return service.recall(
        query,
        limit,
        mode,
        explain,
        filters=Filters(path, tag, kind, since, until),
        token_budget=token_budget - BRIEF_TOKENS,
        nearest_if_none=False,
    )


@tool("Inspect offloaded log", "to read parts of a long offloaded log", _brief_log)
def inspect_log_node(
    service: Service,
    node_id: Annotated[
        str, Field(min_length=1, description="node id printed by `k0maru offload` (e.g. 3fa2c1d0)")
    ],
    lines: Annotated[str | None, Field(description="1-based line range 'A:B'")] = None,
    pattern: Annotated[
        str | None, Field(description="regular expression to find, with context lines")
    ] = None,
    fixed: Annotated[
        bool, Field(description="match `pattern` as plain text, not a regular expression")
    ] = False,
    context: Annotated[int, Field(ge=0, le=50)] = 3,
    max_lines: Annotated[int, Field(ge=1, le=400)] = 120,
) -> LogNodeView:
    """Read a slice of a long build/test/CI log that `k0maru offload` stored: its summary, a line range,
    or the lines matching a pattern with context. Use for "show me the stack of that failing test",
    "what happened around line 300?", "grep the log for E0502"."""
    return service.log_view(node_id, lines, pattern, context, max_lines, fixed=fixed)


@tool("Flush session note", "to save a decision or finding", lambda r: f"{r.outcome}: {r.path}")
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
) -> FlushOutcome:
    """Save what was just decided or learned as a note in the vault, where the team's conventions put that
    kind of note, with frontmatter and [[links]]. Idempotent: the same note twice is `up_to_date`; a
    changed one becomes a new -v2 file, never overwriting. Use for "save the lock-renewal design we just
    agreed", "record this decision", "write an ADR for this"."""
    return service.flush(kind, title, body, tags, related_notes)


@tool(
    "Distill skill from a failure",
    "to turn a failure into a reusable runbook",
    lambda r: f"skill card {r.note_outcome}: {r.note_path}",
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
    """Turn a failure (compiler error, traceback, failing test, sanitizer report) into a reusable skill
    card with Symptoms, Diagnosis path and Fix, linked to related notes; optionally exported as a Hermes
    agent skill. Use for "turn this compiler error into a runbook", "remember how we fixed this"."""
    return service.distill(trace, node_id, "an agent session", "" if export_hermes else None)
