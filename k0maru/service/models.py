"""Typed results of the service operations, shared by every front end (CLI `--json`, MCP structured
content, console API). `payload()` is the one compact wire shape.

Plain dataclasses, not pydantic models, so a one-shot CLI command never imports pydantic. The MCP
SDK derives each tool's output schema from them (fields with a default are optional), and the
sequences default to empty tuples so that every optional field's default is a class attribute it
sees."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

# the recall filters: an input every front end builds
from k0maru.search.filters import (
    Filters as Filters,
)
from k0maru.search.results import RecallHit as RecallHit
from k0maru.search.results import RecallResult as RecallResult
from k0maru.service.scan_report import SCAN_COUNTS as SCAN_COUNTS
from k0maru.service.scan_report import MovedIndex as MovedIndex
from k0maru.service.scan_report import ScanReport as ScanReport
from k0maru.wire import Result as Result


# ---- index
# --------------------------------------------------------------------------------------------
@dataclass(kw_only=True)
class IndexBacklog(Result):
    pending: dict[str, int]  # files new, changed and removed since the last scan
    chunks_pending_embedding: int


@dataclass(kw_only=True)
class VaultStatus(Result):
    """What `status` reports. Sent whole: a null (no model, no BM25 segment yet, never scanned) is
    information here, unlike the other results' absent fields."""

    vault: str
    index: str
    db_size_bytes: int
    schema_version: int
    sqlite: str
    model: str | None
    model_warning: str | None
    documents: int
    chunks: int
    chunks_embedded: int
    links: int
    links_resolved: int
    offloads: int
    chunks_pending_embedding: int
    bm25_main_chunks: int | None  # the persisted segment ...
    bm25_delta_chunks: int | None  # ... and what queries add to it
    last_scan: dict[str, Any] | None
    last_scan_age_s: float | None
    worker_running: bool  # the one process that embeds the chunks still without vectors
    old_copies: int = 0  # index files rebuilds moved aside (the newest few are kept) ...
    old_copies_bytes: int = 0  # ... and their size, not counted in db_size_bytes
    problems: list[str] = field(default_factory=list)  # what `status` exits non-zero for

    def payload(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(kw_only=True)
class SkippedFile(Result):
    path: str  # vault path of a file or folder the scans did not index
    why: str  # what was wrong with it, and what to do


@dataclass(kw_only=True)
class DanglingLink(Result):
    target: str  # as written in the note
    source: str  # the vault path of the note that holds the link
    heading: str | None = None
    attachment: bool = False  # names a file other than a note (an image, a PDF), not found
    titled: str | None = None  # the path of a note whose title the link names (not its name)


@dataclass(kw_only=True)
class IndexGaps(Result):
    """What the index leaves out: files the scans skipped and links that lead nowhere."""

    skipped: Sequence[SkippedFile] = ()
    dangling: Sequence[DanglingLink] = ()
    truncated: bool = False  # more links lead nowhere than `dangling` lists
    headings: Sequence[DanglingLink] = ()  # links to a note found, to a heading it lacks


@dataclass(kw_only=True)
class NamedCount(Result):
    name: str  # a tag or a kind of note
    notes: int  # how many notes the console's note list shows for it (`/notes?tag=` / `?kind=`)


@dataclass(kw_only=True)
class IndexCounts(Result):
    """Counts read from the index alone (the dashboard's, at every page load), each equal to the
    rows of the page it links to."""

    links_to_no_note: int  # links naming a note that is not there (`/gaps`' first list)
    attachment_links: int  # links naming a file other than a note (an image, a PDF), not counted
    tags: Sequence[NamedCount] = ()  # every tag, with its notes (nested tags' included)
    kinds: Sequence[NamedCount] = ()  # every kind of note, with its notes


@dataclass(kw_only=True)
class DoctorReport(Result):
    """What `doctor` found wrong in the index (a line each) and, with `fix`, repaired; `sound`:
    nothing is left wrong; `moved_aside`: where a rebuild put a file too damaged to repair."""

    sound: bool
    findings: list[str] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)
    moved_aside: MovedIndex | None = None


@dataclass(kw_only=True)
class SearchDefaults(Result):
    graph_boost: float  # how much a linked hit lifts its neighbours
    min_cosine: float  # the relevance floor of a vector hit


@dataclass(kw_only=True)
class KindConvention(Result):
    """Where notes of one kind go and how they are named and shaped, as the vault shows it."""

    kind: str
    folder: str
    naming: str  # "date-slug" | "slug" | "adr-number" | "adr-prefixed"
    slug_style: str  # "kebab" | "snake" | "title" | "sentence" | "pascal" | "cased"
    number_width: int
    template: dict[str, Any]  # frontmatter fields and their values
    evidence: list[str]  # why this folder: a rules file's line, the notes found there
    source: str  # "rules" | "layout" | "default"
    template_file: str  # a template a rules file names, vault-relative
    record: dict[str, Any] | None  # the record form learnt from the folder's notes
    empty: bool  # no note in its folder yet: a first ADR takes the public form its body follows
    explained: list[str]  # which folder and why, and the record form, one line each
    suffix: str = ""  # what the records' names carry before `.md` (`.html` of `x.html.md`)


@dataclass(kw_only=True)
class VaultConventions(Result):
    """The rules the vault's notes follow, read from the vault."""

    layout: str  # "johnny-decimal" | "flat"
    rule_files: list[str]  # the agent-rules files the rules came from
    warnings: list[str]  # rules refused, one line each
    kinds: dict[str, KindConvention]


@dataclass(kw_only=True)
class VaultInit(Result):
    vault: str
    done: list[str]  # what `init` created, one line each; empty when the vault was ready


@dataclass(kw_only=True)
class LinkPaths(Result):
    """Where the vault's links lead: `path_of(key)` is the path of the note a link key resolves to,
    None when the link is dangling."""

    resolve: Callable[[str], int | None]  # link key -> document id, as Obsidian resolves it
    paths: dict[int, str]  # document id -> vault path

    def path_of(self, key: str) -> str | None:
        doc_id = self.resolve(key)
        return self.paths.get(doc_id) if doc_id is not None else None

    def path_of_href(self, href: str, note_dir: str) -> str | None:
        """The path of the note a Markdown link `href` in a note of `note_dir` points to, None for a
        dangling link or anything that is not a note (URLs, images, same-note anchors)."""
        from k0maru.index.markdown import md_link_key

        found = md_link_key(href, note_dir)
        return self.path_of(found[0]) if found else None


@dataclass(kw_only=True)
class AdrOutcome(Result):
    path: str  # the ADR note, vault-relative
    outcome: str  # created | updated | up_to_date | versioned


# ---- loadout
# -----------------------------------------------------------------------------------------
@dataclass(kw_only=True)
class LoadoutSection(Result):
    kind: str  # rules | guide | commands | adr | conventions | sources
    source: str  # the file (and heading) it comes from, or the manifest it was read from
    text: str


CLOSING_SECTIONS = ("conventions", "sources")  # a loadout's last sections, kept while they fit


@dataclass(kw_only=True)
class Loadout(Result):
    vault: str
    token_budget: int
    tokens_used: int
    truncated: bool
    sections: list[LoadoutSection]
    focus: str | None = None

    def text(self) -> str:
        """The answer as one text, as the MCP text block and `k0maru loadout` give it."""
        head = f"loadout of {self.vault}: {self.tokens_used}/{self.token_budget} tokens" + (
            " (cut to fit)" if self.truncated else ""
        )
        head += f"; focus: {self.focus}" if self.focus else ""
        return "\n\n".join([head, *(f"## {s.kind}: {s.source}\n{s.text}" for s in self.sections)])

    def carries(self) -> bool:
        """Whether it holds a section of the project's (the closing ones are k0maru's: the note
        conventions, what was read and left out)."""
        return any(s.kind not in CLOSING_SECTIONS for s in self.sections)


# ---- offloaded logs
# ----------------------------------------------------------------------------------
@dataclass(kw_only=True)
class LogLine(Result):
    n: int
    text: str
    match: bool | None = None  # only when grepping


@dataclass(kw_only=True)
class LogNode(Result):
    node_id: str
    task_id: str
    created_at: float
    command: str
    exit_code: int | None = None  # None: read from stdin
    log_path: str
    raw_lines: int
    raw_tokens: int
    summary_tokens: int
    saved_tokens: int
    estimator: str
    stack: Sequence[str] = ()
    error_codes: Sequence[str] = ()
    first_location: str | None = None
    failures: Sequence[dict[str, Any]] = ()
    duration_s: float | None = None  # None: kept before durations were recorded


@dataclass(kw_only=True)
class LogNodeView(Result):
    node_id: str
    command: str
    exit_code: int | None = None  # None: read from stdin
    raw_lines: int
    error_codes: Sequence[str] = ()
    first_location: str | None = None
    summary: str | None = None  # the summary view only: summary, diagram and token counts
    mermaid: str | None = None
    raw_tokens: int | None = None
    summary_tokens: int | None = None
    failure_lines: Sequence[int] = ()  # where the failures the summary names start, in log order
    lines: Sequence[LogLine] = ()
    lines_asked: str | None = None  # the range a pattern was searched in, when one was given
    matches: int | None = None  # with a pattern: all matches (in the range), shown or not
    skipped: int = 0  # with a pattern: the matches passed over before the first one shown
    next_skip: int | None = None  # with a pattern: the `skip` that shows the next matches
    truncated: bool = False


@dataclass(kw_only=True)
class OffloadRun(Result):
    exit_code: int  # the command's own exit status
    lines: int  # lines of output
    record: dict[str, Any] | None = (
        None  # the kept log's record; None when the output passed through
    )

    def payload(self) -> dict[str, Any]:
        if self.record is not None:
            return dict(self.record)
        return {"offloaded": False, "exit_code": self.exit_code, "lines": self.lines}


@dataclass(kw_only=True)
class LogPruned(Result):
    removed: int  # logs removed, with their records and sidecars
    freed_bytes: int
    kept: int
    kept_bytes: int


@dataclass(kw_only=True)
class TokenScoreboard(Result):
    offloads: int
    raw_tokens: int
    summary_tokens: int
    saved_tokens: int
    ratio: float | None
    price_per_mtok: float
    saved_usd: float
    points: Sequence[dict[str, Any]] = ()


# ---- notes
# -------------------------------------------------------------------------------------------
@dataclass(kw_only=True)
class FlushOutcome(Result):
    path: str
    outcome: Literal["created", "up_to_date", "versioned"]
    kind: str
    linked: Sequence[str] = ()
    unresolved: Sequence[str] = ()
    warnings: Sequence[str] = ()  # one line each, e.g. the kind's template was refused
    supersedes: str = ""  # the decision this one replaces, marked superseded by it


@dataclass(kw_only=True)
class SkillCardResult(Result):
    title: str
    stack: str
    error_codes: list[str]
    location: str | None
    note_path: str
    note_outcome: str
    related_notes: Sequence[str] = ()
    hermes_path: str | None = None
    hermes_outcome: str | None = None
    card_markdown: str


@dataclass(kw_only=True)
class NoteEntry(Result):
    path: str
    title: str


@dataclass(kw_only=True)
class NoteList(Result):
    notes: list[NoteEntry]


@dataclass(kw_only=True)
class NoteText(Result):
    path: str
    text: str  # the note's raw Markdown


@dataclass(kw_only=True)
class NoteLink(Result):
    target: str | None = None
    path: str | None = None
    title: str | None = None
    attachment: str | None = None  # the vault path of the file a link to an attachment names


@dataclass(kw_only=True)
class NoteView(Result):
    path: str
    title: str
    frontmatter: dict[str, Any] = field(default_factory=dict)
    body: str
    tags: Sequence[str] = ()  # as indexed: frontmatter and inline #tags
    links: Sequence[NoteLink] = ()
    backlinks: Sequence[NoteLink] = ()


# ---- agent-facing listings (MCP)
# ---------------------------------------------------------------------
@dataclass(kw_only=True)
class LogNodeBrief(Result):
    node_id: str
    age: str  # "3m", "2h", "5d": how long ago it was offloaded
    command: str
    exit_code: int | None = None  # None: read from stdin
    raw_lines: int
    raw_tokens: int
    summary_tokens: int
    error_codes: Sequence[str] = ()
    first_location: str | None = None


@dataclass(kw_only=True)
class LogNodeList(Result):
    nodes: list[LogNodeBrief]
    more: int = 0  # nodes that matched beyond `limit`


@dataclass(kw_only=True)
class NoteExcerpt(Result):
    path: str
    lines: str  # "12-30" of `total_lines`
    total_lines: int
    text: str
    heading: str | None = None
    truncated: bool = False  # the range asked for did not fit the token budget
