"""Typed results of the service operations, shared by every front end (CLI `--json`, MCP structured
content, console API). `payload()` is the one compact wire shape."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel


def _round(value: Any) -> Any:
    if isinstance(value, float):
        return float(f"{value:.4g}")
    if isinstance(value, dict):
        return {k: _round(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_round(v) for v in value]
    return value


class Result(BaseModel):
    def payload(self) -> dict[str, Any]:
        """The compact JSON-ready shape every front end sends: fields that are None or still at their
        default (empty lists, false flags) are left out, floats carry 4 significant digits."""
        return _round(self.model_dump(mode="json", exclude_none=True, exclude_defaults=True))


# ---- recall ------------------------------------------------------------------------------------------
class RecallHit(Result):
    path: str
    title: str
    score: float
    snippet: str
    heading: str | None = None  # heading path of the passage below the title, when it is not the note's lead
    lines: str | None = None  # the passage's lines in the file, "12-30"
    # per-channel detail, only with explain
    bm25_rank: int | None = None
    bm25_score: float | None = None
    vector_rank: int | None = None
    cosine: float | None = None
    bm25_part: float | None = None  # the score's parts: BM25, vectors, graph
    vector_part: float | None = None
    graph_boost: float | None = None
    boost_links: list[str] = []


class RecallResult(Result):
    query: str
    mode: str
    hits: list[RecallHit]
    warnings: list[str] = []
    pool: int | None = None  # with explain
    bm25_weight: float | None = None  # with explain: BM25's share of the score for this query


# ---- loadout -----------------------------------------------------------------------------------------
class LoadoutSection(Result):
    kind: str  # rules | conventions | hub | adr
    source: str
    text: str


class Loadout(Result):
    vault: str
    token_budget: int
    tokens_used: int
    truncated: bool
    sections: list[LoadoutSection]


# ---- offloaded logs ----------------------------------------------------------------------------------
class LogLine(Result):
    n: int
    text: str
    match: bool | None = None  # only when grepping


class LogNode(Result):
    node_id: str
    task_id: str
    created_at: float
    command: str
    exit_code: int | None
    log_path: str
    raw_lines: int
    raw_tokens: int
    summary_tokens: int
    saved_tokens: int
    estimator: str
    stack: list[str] = []
    error_codes: list[str] = []
    first_location: str | None = None
    failures: list[dict[str, Any]] = []


class LogNodeView(Result):
    node_id: str
    command: str
    exit_code: int | None
    raw_lines: int
    error_codes: list[str] = []
    first_location: str | None = None
    summary: str | None = None  # the summary view only: summary, diagram and token counts
    mermaid: str | None = None
    raw_tokens: int | None = None
    summary_tokens: int | None = None
    failure_lines: list[int] = []  # where the failures the summary names start, in log order
    lines: list[LogLine] = []
    matches: int | None = None
    truncated: bool = False


class TokenScoreboard(Result):
    offloads: int
    raw_tokens: int
    summary_tokens: int
    saved_tokens: int
    ratio: float | None
    price_per_mtok: float
    saved_usd: float
    points: list[dict[str, Any]] = []


# ---- notes -------------------------------------------------------------------------------------------
class FlushOutcome(Result):
    path: str
    outcome: Literal["created", "up_to_date", "versioned"]
    kind: str
    linked: list[str] = []
    unresolved: list[str] = []


class SkillCardResult(Result):
    title: str
    stack: str
    error_codes: list[str]
    location: str | None
    note_path: str
    note_outcome: str
    related_notes: list[str] = []
    hermes_path: str | None = None
    hermes_outcome: str | None = None
    card_markdown: str


class NoteLink(Result):
    target: str | None = None
    path: str | None = None
    title: str | None = None


class NoteView(Result):
    path: str
    title: str
    frontmatter: dict[str, Any] = {}
    body: str
    links: list[NoteLink] = []
    backlinks: list[NoteLink] = []
