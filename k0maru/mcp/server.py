"""MCP stdio server: k0maru's five tools and the vault's notes as resources.

Only JSON-RPC goes to stdout (logs go to stderr). The server shares the index file with the CLI,
the git hooks and the web console: it rescans incrementally (throttled) before answering, and a
concurrent writer only makes it wait (WAL, busy timeout, retries), never fail."""

from __future__ import annotations

import logging
import sys
import threading
from typing import Annotated, Literal
from urllib.parse import quote

from pydantic import BaseModel, Field

from k0maru.errors import K0maruError
from k0maru.service.session import LiveVault
from k0maru.service.vault import Vault

log = logging.getLogger("k0maru.mcp")

INSTRUCTIONS = (
    "k0maru is this project's memory: decisions, ADRs, cards, incident logs and offloaded build/test logs. "
    "Call get_project_loadout when starting on the project, recall_memory before solving a problem that may "
    "have been seen before, inspect_log_node to read parts of a long offloaded log, flush_session to save a "
    "decision or finding, and distill_session_skill to turn a failure into a reusable runbook."
)


class RecallHit(BaseModel):
    path: str
    title: str
    score: float
    snippet: str
    heading: str
    bm25_rank: int | None
    bm25_score: float | None
    vector_rank: int | None
    cosine: float | None
    rrf: float
    graph_boost: float
    boost_links: list[str]
    uri: str


class RecallResult(BaseModel):
    query: str
    mode: str
    hits: list[RecallHit]
    warnings: list[str]


class LoadoutSection(BaseModel):
    kind: str  # rules | conventions | hub | adr
    source: str
    text: str


class Loadout(BaseModel):
    vault: str
    token_budget: int
    tokens_used: int
    truncated: bool
    sections: list[LoadoutSection]


class LogLine(BaseModel):
    n: int
    text: str
    match: bool = False


class LogNodeView(BaseModel):
    node_id: str
    command: str
    exit_code: int | None
    raw_lines: int
    error_codes: list[str]
    first_location: str | None
    summary: str | None
    lines: list[LogLine]
    matches: int | None = None
    truncated: bool = False


class FlushOutcome(BaseModel):
    path: str
    outcome: Literal["created", "up_to_date", "versioned"]
    kind: str
    linked: list[str]
    unresolved: list[str]


class SkillCardResult(BaseModel):
    title: str
    stack: str
    error_codes: list[str]
    location: str | None
    note_path: str
    note_outcome: str
    related_notes: list[str]
    hermes_path: str | None
    hermes_outcome: str | None
    card_markdown: str


class K0maruService(LiveVault):
    """The tools' logic over one vault (the lock and the throttled rescan come from LiveVault)."""

    def warm_up(self) -> None:
        """Load the model and the BM25 index off the request path."""
        try:
            with self.lock:
                self.fresh()
                _ = self.vault.recall
                self.vault.recall.lexical.get(self.vault.store)
            if self.vault.embedder is not None:
                self.vault.embedder.embed(["warm up"])
        except Exception as exc:  # noqa: BLE001 - a failed warm-up must not kill the server
            log.warning("warm-up failed: %s", exc)

    def recall(self, query: str, limit: int, mode: str) -> RecallResult:
        with self.lock:
            self.fresh()
            result = self.vault.recall.search(query, limit=limit, mode=mode)
        hits = [RecallHit(**{k: v for k, v in h.as_dict().items() if k != "doc_id"}, uri=note_uri(h.path))
                for h in result.hits]
        return RecallResult(query=result.query, mode=result.mode, hits=hits, warnings=result.warnings)

    def loadout(self, token_budget: int) -> Loadout:
        from k0maru.notes.loadout import build_loadout

        with self.lock:
            self.fresh()
            sections, used, truncated = build_loadout(self.vault, token_budget)
        return Loadout(vault=str(self.vault.root), token_budget=token_budget, tokens_used=used, truncated=truncated,
                       sections=[LoadoutSection(**s) for s in sections])

    def inspect(self, node_id: str, lines: str | None, pattern: str | None, context: int, max_lines: int) -> LogNodeView:
        from k0maru.offload import records, slices

        with self.lock:
            rec = records.get(self.vault.store, node_id)
            path = records.log_file(self.vault.root, rec)
        base = {"node_id": rec.node_id, "command": rec.command, "exit_code": rec.exit_code,
                "raw_lines": rec.raw_lines, "error_codes": rec.error_codes, "first_location": rec.first_location}
        max_lines = max(1, min(max_lines, slices.MAX_LINES))
        if pattern:
            found, total = slices.grep(path, pattern, context, max_matches=50, max_lines=max_lines)
            return LogNodeView(**base, summary=None, matches=total, truncated=len(found) >= max_lines,
                               lines=[LogLine(n=n, text=t, match=m) for n, t, m in found])
        if lines:
            start, end = slices.parse_range(lines)
            got = slices.line_range(path, start, end, max_lines)
            return LogNodeView(**base, summary=None, truncated=end - start + 1 > len(got),
                               lines=[LogLine(n=n, text=t) for n, t in got])
        return LogNodeView(**base, summary=rec.summary, lines=[])

    def flush(self, title: str, body: str, kind: str, tags: list[str], related: list[str]) -> FlushOutcome:
        from k0maru.notes.flush import flush_indexed

        with self.lock:
            self.fresh()
            result = flush_indexed(self.vault, kind, title, body, tags, related)
        return FlushOutcome(**result.as_dict())

    def distill(self, trace: str | None, node_id: str | None, export_hermes: bool) -> SkillCardResult:
        from k0maru.notes.distill import distill_source

        if not (trace and trace.strip()) and not node_id:
            raise K0maruError("pass either `trace` (the failure text) or `node_id` (an offloaded log)")
        export = self.vault.settings.hermes_dir if export_hermes else None
        with self.lock:
            self.fresh()
            card = distill_source(self.vault, trace, node_id, "an agent session", export)
            text = (self.vault.root / card.note.path).read_text(encoding="utf-8")
        return SkillCardResult(title=card.title, stack=card.stack, error_codes=card.codes, location=card.location,
                               note_path=card.note.path, note_outcome=card.note.outcome, related_notes=card.related,
                               hermes_path=card.hermes_path, hermes_outcome=card.hermes_outcome, card_markdown=text)

    def notes(self) -> list[tuple[str, str]]:
        with self.lock:
            self.fresh()
            return [(path, title) for _, path, title in self.vault.store.list_documents()]

    def read_note(self, path: str) -> str:
        from k0maru.fsutil import resolve_inside

        with self.lock:
            doc = self.vault.store.document_by_path(path)
        if doc is None:
            raise K0maruError(f"no note {path!r} in the index; list resources to see the notes")
        full = resolve_inside(self.vault.root, doc.path)
        return full.read_text(encoding="utf-8", errors="replace")


def note_uri(path: str) -> str:
    return "k0maru://note/" + quote(path, safe="/")


def build_server(service: K0maruService):
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ResourceError, ToolError
    from mcp.types import Resource

    class K0maruServer(MCPServer):
        async def list_resources(self) -> list[Resource]:  # the notes change: list them live
            import anyio

            notes = await anyio.to_thread.run_sync(service.notes)
            return [Resource(uri=note_uri(p), name=p, title=t, mime_type="text/markdown") for p, t in notes]

    server = K0maruServer("k0maru", instructions=INSTRUCTIONS, version=_version(), log_level="WARNING")

    def guard(fn, *args):
        try:
            return fn(*args)
        except K0maruError as exc:
            raise ToolError(str(exc)) from None

    @server.tool(title="Project loadout")
    def get_project_loadout(
        token_budget: Annotated[int, Field(ge=200, le=32000, description="maximum tokens to return")] = 2000,
    ) -> Loadout:
        """Start here when taking over or resuming work on this project: returns the team's explicit rules
        (AGENTS.md, CONVENTIONS.md, .k0maru/rules.md), where notes of each kind live, the most linked hub
        notes and the latest ADRs, within a token budget. Use for "what are the core conventions?",
        "how does this project work?", "onboard me"."""
        return guard(service.loadout, token_budget)

    @server.tool(title="Recall memory")
    def recall_memory(
        query: Annotated[str, Field(min_length=1, description="words, error codes or symbols, e.g. 'SQLITE_BUSY during backup'")],
        limit: Annotated[int, Field(ge=1, le=50, description="number of notes to return")] = 8,
        mode: Annotated[Literal["hybrid", "bm25", "vector"], Field(description="retrieval channel")] = "hybrid",
    ) -> RecallResult:
        """Search the project's memory (decisions, ADRs, incident logs, cards) with hybrid keyword + semantic
        recall. Use before fixing an error or making a design choice: "have we seen this error before?",
        "why did we choose X?", "what do we know about E0502 / SQLITE_BUSY?". Each hit explains its ranks,
        scores and graph links."""
        if not query.strip():
            raise ToolError("empty query; pass the words or symbols to look for")
        return guard(service.recall, query, limit, mode)

    @server.tool(title="Inspect offloaded log")
    def inspect_log_node(
        node_id: Annotated[str, Field(min_length=1, description="node id printed by `k0maru offload` (e.g. 3fa2c1d0)")],
        lines: Annotated[str | None, Field(description="1-based line range 'A:B'")] = None,
        pattern: Annotated[str | None, Field(description="regular expression to find, with context lines")] = None,
        context: Annotated[int, Field(ge=0, le=50)] = 3,
        max_lines: Annotated[int, Field(ge=1, le=400)] = 120,
    ) -> LogNodeView:
        """Read a slice of a long build/test/CI log that `k0maru offload` stored: its summary, a line range,
        or the lines matching a pattern with context. Use for "show me the stack of that failing test",
        "what happened around line 300?", "grep the log for E0502"."""
        return guard(service.inspect, node_id, lines, pattern, context, max_lines)

    @server.tool(title="Flush session note")
    def flush_session(
        title: Annotated[str, Field(min_length=1, description="note title")],
        body: Annotated[str, Field(min_length=1, description="Markdown body of the note")],
        kind: Annotated[Literal["adr", "decision", "card", "log", "skill"], Field(description="kind of note")] = "decision",
        tags: Annotated[list[str], Field(description="tags")] = [],  # noqa: B006 - pydantic copies defaults
        related_notes: Annotated[list[str], Field(description="existing notes to link: file name, vault path or title (as in recall hits)")] = [],  # noqa: B006
    ) -> FlushOutcome:
        """Save what was just decided or learned as a note in the vault, where the team's conventions put that
        kind of note, with frontmatter and [[links]]. Idempotent: the same note twice is `up_to_date`; a
        changed one becomes a new -v2 file, never overwriting. Use for "save the lock-renewal design we just
        agreed", "record this decision", "write an ADR for this"."""
        return guard(service.flush, title, body, kind, tags, related_notes)

    @server.tool(title="Distill skill from a failure")
    def distill_session_skill(
        trace: Annotated[str | None, Field(description="failure text: compiler error, traceback, test output")] = None,
        node_id: Annotated[str | None, Field(description="or an offloaded log node id")] = None,
        export_hermes: Annotated[bool, Field(description="also export a Hermes/Agent Skills SKILL.md")] = False,
    ) -> SkillCardResult:
        """Turn a failure (compiler error, traceback, failing test, sanitizer report) into a reusable skill
        card with Symptoms, Diagnosis path and Fix, linked to related notes; optionally exported as a Hermes
        agent skill. Use for "turn this compiler error into a runbook", "remember how we fixed this"."""
        return guard(service.distill, trace, node_id, export_hermes)

    @server.resource("k0maru://note/{+path}", name="note", mime_type="text/markdown",
                     description="A note of the vault, by its vault-relative path")
    def read_note(path: str) -> str:
        try:
            return service.read_note(path)
        except K0maruError as exc:
            raise ResourceError(str(exc)) from None

    return server


def _version() -> str:
    from k0maru import __version__

    return __version__


def serve(vault_dir: str | None) -> int:
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="k0maru-mcp: %(message)s")
    vault = Vault.open(vault_dir)
    service = K0maruService(vault)
    warm = threading.Thread(target=service.warm_up, name="k0maru-warm-up")
    warm.start()
    server = build_server(service)
    try:
        server.run("stdio")
    finally:
        # never tear down under a thread still inside onnxruntime or SQLite (that crashes the interpreter)
        warm.join()
        service.close()
        with service.lock:
            vault.close()
    return 0
