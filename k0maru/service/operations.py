"""The operations every front end offers, implemented once over one `VaultSession`.

Front ends (cli/, mcp/, console/, githooks/) parse their input, call one method here and render the
typed result; none of them touches the store or the engines directly."""

from __future__ import annotations

import os

from k0maru.errors import K0maruError, NotFoundError
from k0maru.fsutil import read_text
from k0maru.limits import (
    MAX_NODE_ID_CHARS,
    MAX_PATTERN_CHARS,
    MAX_QUERY_CHARS,
    check_length,
    check_note_input,
    echo,
    one_line,
)
from k0maru.text import shorten, unescape

TYPE_CHECKING = False  # as typing's (mypy reads it so): `unchanged_scan` imports no typing (#62)
if TYPE_CHECKING:
    import threading
    from collections.abc import Callable, Sequence
    from pathlib import Path
    from typing import Any

    from k0maru.index.document_store import DocRow
    from k0maru.index.scan_result import ProgressFn
    from k0maru.index.store import Store
    from k0maru.offload.records import OffloadRecord
    from k0maru.search.filters import Filters
    from k0maru.search.results import RecallHit
    from k0maru.service.models import (
        AdrOutcome,
        DanglingLink,
        DoctorReport,
        FlushOutcome,
        IndexBacklog,
        IndexCounts,
        IndexGaps,
        LinkPaths,
        Loadout,
        LogNode,
        LogNodeView,
        LogPruned,
        NoteList,
        NoteText,
        NoteView,
        RecallResult,
        ScanReport,
        SearchDefaults,
        SkillCardResult,
        TokenScoreboard,
        VaultConventions,
        VaultInit,
        VaultStatus,
    )
    from k0maru.service.session import VaultSession
    from k0maru.wiring.vault import IndexReport, Vault

DEFAULT_LOG_LINES = 120
QUERY_ECHO_CHARS = 80  # a pasted backtrace as the query is not sent back whole
PASSAGE_CAPS = (800, 560, 400, 280, 200, 140, 100, 70, 40)  # characters per passage, tried in turn
MIN_PASSAGE_CHARS = 200  # no kept passage is cut shorter while leaving out lower hits makes room


def unchanged_scan(vault_dir: str | None, **flags: Any) -> tuple[str, dict[str, Any]] | None:
    """The vault's root and the report of a scan that finds nothing to do, known from a walk and
    one read of the index (index/snapshot.py), as `ScanReport.payload()` shapes it; None when there
    is anything to do, or any doubt, and the full scan then runs (and says what is wrong). A dict
    and strings, so that this answer imports no result type and no pathlib."""
    import stat
    import time

    from k0maru.config import load_settings
    from k0maru.index.snapshot import FILE, unchanged_files
    from k0maru.layout import STATE_DIR, resolve_vault

    t0 = time.perf_counter()
    chosen = vault_dir or os.environ.get("K0MARU_VAULT")
    root = os.path.realpath(os.path.expanduser(chosen)) if chosen else str(resolve_vault(None))
    try:  # the state folder a folder of the vault's own (not a link), with a snapshot in it
        if not stat.S_ISDIR(os.lstat(os.path.join(root, STATE_DIR)).st_mode):
            return None
        if not os.path.isfile(os.path.join(root, STATE_DIR, FILE)):  # a first scan
            return None
    except OSError:
        return None
    s = load_settings(root, **flags)
    files = unchanged_files(root, s.include, s.exclude, s.max_file_bytes, s.embed)
    if files is None:
        return None
    return root, {
        "added": 0,
        "modified": 0,
        "unchanged": files,
        "removed": 0,
        "skipped": 0,
        "symlinks": 0,
        "elapsed_ms": round((time.perf_counter() - t0) * 1000, 2),
        "touched": 0,
        "files_read": 0,
        "embedded": 0,
        "walk_only": True,
    }


def adr_from_commit(vault_root: Path, rev: str) -> AdrOutcome | None:
    """The ADR note the `ADR:` trailer of commit `rev` asks for, written or brought up to date
    (notes/adr.py); None when the commit asks for none. Needs no index, so the git hook calling it
    opens none."""
    from k0maru.notes.adr import adr_from_head
    from k0maru.service.models import AdrOutcome

    result = adr_from_head(vault_root, rev)
    return AdrOutcome(path=result["path"], outcome=result["outcome"]) if result else None


class Service:
    def __init__(self, session: VaultSession):
        self._session = session
        self._vault: Vault = session.vault

    @classmethod
    def open(
        cls,
        vault_dir: str | os.PathLike[str] | None,
        *,
        settings: dict[str, Any] | None = None,
        create: bool = False,
        one_shot: bool = False,
        **session_options: Any,
    ) -> Service:
        """The service over the vault at `vault_dir` (`settings`: flags over its config); `create`:
        the cwd may become a new vault (`init`); `one_shot`: a process that answers once and
        exits."""
        from k0maru.service.session import VaultSession
        from k0maru.wiring.vault import Vault

        vault = Vault.open(vault_dir, create=create, **(settings or {}))
        vault.one_shot = one_shot
        return cls(VaultSession(vault, **session_options))

    def close(self) -> None:
        self._session.close()

    def __enter__(self) -> Service:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def root(self) -> Path:
        """The vault's root folder."""
        return self._vault.root

    @property
    def warnings(self) -> list[str]:
        """What the last refresh of the index had to say (skipped files, a refresh that failed)."""
        return self._session.warnings

    def watch(self) -> None:
        """Servers: follow the vault's changes with the file watcher instead of walking it."""
        self._session.watch()

    def catch_up(self, scan_progress: ProgressFn | None = None) -> None:
        """Bring the index up to date now, its vectors following in the background (a server about
        to listen); an `IndexReadOnlyError` when the index cannot be written."""
        self._vault.index(record=False, scan_progress=scan_progress, embed=False, lexical=True)
        if not self._vault.store.readonly:
            self._session.embed_later()

    def warm_up(self) -> None:
        """Load what the first recall needs, off the request path (`service/warm_up.py`)."""
        from k0maru.service.warm_up import warm_up

        warm_up(self._session)

    def load_model_early(self) -> threading.Thread | None:
        """The embedding model loading in a thread of its own; None when embeddings are off."""
        from k0maru.service.warm_up import load_model_early

        return load_model_early(self._vault)

    def search_defaults(self) -> SearchDefaults:
        """The vault's ranking settings a search form starts from."""
        from k0maru.service.models import SearchDefaults

        settings = self._vault.settings
        return SearchDefaults(graph_boost=settings.graph_boost, min_cosine=settings.min_cosine)

    # ---- recall --------------------------------------------------------------------------------
    def recall(  # noqa: PLR0913 - the operation's options, as every front end passes them
        self,
        query: str,
        limit: int = 8,
        mode: str = "hybrid",
        explain: bool = False,
        graph_boost: float | None = None,
        min_cosine: float | None = None,
        filters: Filters | None = None,
        token_budget: int | None = None,
        min_score: float | None = None,
        cost: Callable[[RecallResult, int | None], int] | None = None,
    ) -> RecallResult:
        """Ranked notes with their answering passages (those scoring at least `min_score`); with
        `token_budget`, the answer is cut to fit it exactly as `cost` counts it (default: the
        compact JSON in o200k tokens), see `fit_budget`. The query comes back cut to a short
        echo."""
        from k0maru.notes.supersede import standing_first
        from k0maru.search import results  # service.models' RecallResult, without its other models

        check_length("query", query, MAX_QUERY_CHARS)
        mode = _lexical_without_embedding(mode, self._vault.settings.embed)
        with self._session.session() as vault:
            if filters and filters.kind:
                _check_kind(filters.kind, vault.store.note_kinds())
            result = vault.recall.search(
                query,
                limit=limit,
                mode=mode,
                graph_boost=graph_boost,
                min_cosine=min_cosine,
                filters=filters,
                passage_chars=PASSAGE_CAPS[0] if token_budget else 280,
            )
            hits = _kept(result.hits, explain, min_score)
            order, replaced_by = standing_first(vault.root, [h.path for h in hits])
            replaced_by = _successor_paths(vault.store, replaced_by, {h.path for h in hits})
        hits = [hits[i].but(superseded_by=replaced_by.get(i)) for i in order]
        answer = results.RecallResult(
            query=shorten(" ".join(result.query.split()), QUERY_ECHO_CHARS, at_word=True),
            mode=result.mode,
            hits=hits,
            warnings=[
                *self._session.behind(),
                *result.warnings,
                *_all_below(result.hits, hits, min_score, result.mode),
            ],
            pool=result.pool if explain else None,
            bm25_weight=result.bm25_weight if explain else None,
            cosine_floor=result.cosine_floor if explain else None,
        )
        if not token_budget:
            return answer
        return fit_budget(answer, token_budget, cost or answer_tokens)

    # ---- loadout -------------------------------------------------------------------------------
    def loadout(self, token_budget: int, focus: str | None = None) -> Loadout:
        """What the project tells a newcomer (agent files, guides, the commands it runs, decisions
        in force; `focus` first) within `token_budget`, the whole answer counted: its JSON and its
        text each fit (fit_loadout), so MCP, `k0maru loadout` and the console give the same one."""
        import json

        from k0maru.llm_tokens import count_tokens
        from k0maru.notes.loadout import build_loadout
        from k0maru.service.models import Loadout, LoadoutSection
        from k0maru.text import visible

        def cost(answer: Loadout) -> int:  # the JSON and the text block as MCP sends them
            structured = json.dumps(answer.payload(), ensure_ascii=False, separators=(",", ":"))
            return max(count_tokens(structured), count_tokens(visible(answer.text(), keep="\n")))

        with self._session.session() as vault:

            def build(share: int) -> Loadout:
                sections, used, truncated = build_loadout(vault, share, focus)
                return Loadout(
                    vault=str(vault.root),
                    token_budget=token_budget,
                    tokens_used=used,
                    truncated=truncated,
                    sections=[LoadoutSection(**s) for s in sections],
                    focus=focus,
                )

            return fit_loadout(build, token_budget, cost)

    # ---- offloaded logs ------------------------------------------------------------------------
    def log_list(self, limit: int = 50) -> list[LogNode]:
        import dataclasses

        from k0maru.offload import records
        from k0maru.service.models import LogNode

        with self._session.session(fresh=False) as vault:
            recs = records.list_all(vault.store, limit)
        names = {f.name for f in dataclasses.fields(LogNode)}
        return [LogNode(**{k: v for k, v in r.as_dict().items() if k in names}) for r in recs]

    def log_view(
        self,
        node_id: str,
        lines: str | None = None,
        pattern: str | None = None,
        context: int = 3,
        max_lines: int = DEFAULT_LOG_LINES,
        max_matches: int = 50,
        fixed: bool = False,
        skip: int = 0,
    ) -> LogNodeView:
        """A stored log: its summary (no range, no pattern), a 1-based line range, or pattern
        matches with context (the first `skip` matches passed over; with `lines`, only matches
        inside the range). At most `max_lines` lines come back; `truncated` says when more were
        asked for, `next_skip` where the next page of matches starts."""
        from k0maru.offload import records, slices
        from k0maru.service.models import LogLine, LogNodeView

        one_line("node id", node_id, MAX_NODE_ID_CHARS)
        if pattern:
            check_length("pattern", pattern, MAX_PATTERN_CHARS)
        within = slices.parse_range(lines) if lines else None
        with self._session.session(fresh=False) as vault:
            rec = records.get(vault.store, node_id)
            path = records.log_file(vault.root, rec)
        base: dict[str, Any] = {
            "node_id": rec.node_id,
            "command": rec.command,
            "exit_code": rec.exit_code,
            "raw_lines": rec.raw_lines,
            "error_codes": rec.error_codes,
            "first_location": rec.first_location,
        }
        max_lines = max(1, min(max_lines, slices.MAX_LINES))
        if pattern:
            skip = max(0, skip)
            found, total = slices.grep(
                path,
                pattern,
                context,
                max_matches=max_matches,
                max_lines=max_lines,
                fixed=fixed,
                skip=skip,
                within=within,
            )
            upto = skip + sum(1 for _, _, m in found if m)
            return LogNodeView(
                **base,
                lines_asked=lines,
                matches=total,
                skipped=skip,
                truncated=upto < total,
                next_skip=upto if upto < total else None,
                lines=[LogLine(n=n, text=t, match=m) for n, t, m in found],
            )
        if within:
            start, end = within
            got = slices.line_range(path, start, end, max_lines)
            last = min(end, rec.raw_lines)
            return LogNodeView(
                **base,
                truncated=bool(got) and got[-1][0] < last,
                lines=[LogLine(n=n, text=t) for n, t in got],
            )
        return LogNodeView(
            **base,
            summary=rec.summary,
            mermaid=rec.mermaid,
            raw_tokens=rec.raw_tokens,
            summary_tokens=rec.summary_tokens,
            failure_lines=sorted({int(f["line"]) for f in rec.failures if f.get("line")}),
        )

    def log_prune(
        self, older_than: str | None = None, keep: int | None = None, max_mb: int | None = None
    ) -> LogPruned:
        """Offloaded logs removed by age, count and size cap (`max_mb`; default: the configured
        cap), each with its record and sidecar."""
        from k0maru.offload import records
        from k0maru.service.models import LogPruned

        age = records.parse_age(older_than) if older_than else None
        if keep is not None and keep < 0:
            raise K0maruError(f"--keep {keep}: use 0 or more logs to keep")
        cap = self._vault.settings.offload_max_mb if max_mb is None else max_mb
        with self._session.session(fresh=False) as vault:
            vault.store.require_writable()
            done = records.prune(
                vault.store,
                vault.root,
                older_than_s=age,
                keep=keep,
                max_bytes=cap * 1_000_000 if cap else None,
            )
        return LogPruned(
            removed=done.logs,
            freed_bytes=done.freed_bytes,
            kept=done.kept,
            kept_bytes=done.kept_bytes,
        )

    def token_scoreboard(
        self, price_per_mtok: float | None = None, chart: bool = True
    ) -> TokenScoreboard:
        """Tokens offloads saved, in all; with `chart`, each offload's (its points)."""
        from k0maru.offload import records
        from k0maru.service.models import TokenScoreboard

        price = (
            self._vault.settings.token_price_per_mtok if price_per_mtok is None else price_per_mtok
        )
        with self._session.session(fresh=False) as vault:
            totals = records.totals(vault.store)
            points = [
                {
                    "node_id": r.node_id,
                    "created_at": r.created_at,
                    "raw_tokens": r.raw_tokens,
                    "summary_tokens": r.summary_tokens,
                }
                for r in reversed(records.list_all(vault.store, 10_000) if chart else [])
            ]
        return TokenScoreboard(
            **totals,
            price_per_mtok=price,
            saved_usd=round(totals["saved_tokens"] / 1e6 * price, 4),
            points=points,
        )

    # ---- notes ---------------------------------------------------------------------------------
    def flush(
        self,
        kind: str,
        title: str,
        body: str,
        tags: list[str],
        related: list[str],
        when: str | None = None,
        folder: str | None = None,
    ) -> FlushOutcome:
        """`when`: the note's date, YYYY-MM-DD (default today); `folder`: which of the family's
        parallel folders (a status, group or component: `accepted`, `sig-storage`)."""
        from k0maru.notes.flush import flush_indexed, note_date
        from k0maru.service.models import FlushOutcome

        check_note_input(title, tags, related, body, self._vault.settings.max_file_bytes)
        day = note_date(when)
        with self._session.session(
            fresh=False, write=True
        ) as vault:  # indexes its own note: no walk
            vault.store.require_writable()
            result = flush_indexed(vault, kind, title, body, tags, related, day, folder)
        self._session.embed_later()
        return FlushOutcome(**result.as_dict())

    def distill(
        self,
        trace: str | None,
        node_id: str | None,
        source: str = "an agent session",
        export_dir: str | None = None,
    ) -> SkillCardResult:
        """A skill card from failure text or an offloaded log; `export_dir` '' means the configured
        Hermes folder, None no export."""
        from k0maru.notes.distill import distill_source
        from k0maru.service.bridges import failure_reading
        from k0maru.service.models import SkillCardResult

        if not (trace and trace.strip()) and not node_id:
            raise K0maruError(
                "pass either `trace` (the failure text) or `node_id` (an offloaded log)"
            )
        if node_id:
            one_line("node id", node_id, MAX_NODE_ID_CHARS)
        if trace:
            check_length("trace", trace, self._vault.settings.max_file_bytes)
        if export_dir == "":
            export_dir = self._vault.settings.hermes_dir
        with self._session.session(write=True) as vault:
            vault.store.require_writable()
            card = distill_source(vault, failure_reading(vault), trace, node_id, source, export_dir)
            assert card.note is not None
            text = read_text(vault.root / card.note.path)
        self._session.embed_later()
        return SkillCardResult(
            title=card.title,
            stack=card.stack,
            error_codes=card.codes,
            location=card.location,
            note_path=card.note.path,
            note_outcome=card.note.outcome,
            related_notes=card.related,
            hermes_path=card.hermes_path,
            hermes_outcome=card.hermes_outcome,
            card_markdown=text,
        )

    def notes(self, contains: str | None = None, filters: Filters | None = None) -> NoteList:
        """The indexed notes (path, title): all, or those whose path or title contains `contains`
        (case-insensitive) and that `filters` select."""
        from k0maru.service.models import NoteEntry, NoteList

        with self._session.session() as vault:
            docs = vault.store.list_documents()
            if filters:
                allowed = filters.allowed(vault.store)
                docs = [d for d in docs if d[0] in allowed]
        needle = (contains or "").strip().lower()
        return NoteList(
            notes=[
                NoteEntry(path=path, title=title)
                for _, path, title in docs
                if not needle or needle in f"{path}\n{title}".lower()
            ]
        )

    def read_note(self, path: str, named: bool = False) -> NoteText:
        """The raw Markdown of an indexed note (confined to the vault) at vault path `path`; with
        `named`, else the note it names as a link does (file name, alias), else by title."""
        from k0maru.fsutil import read_regular, resolve_inside
        from k0maru.service.models import NoteText
        from k0maru.suggest import similar_notes

        resolve_inside(self._vault.root, path)
        with self._session.session(fresh=False) as vault:
            # a path as answers show it, control and bidi characters escaped (`text.visible`)
            doc = vault.store.document_by_path(path) or vault.store.document_by_path(unescape(path))
            doc = doc or (_named(vault.store, path) if named else None)
            why = None if doc else self._why_not_indexed(vault, path)
            if doc is None:
                raise NotFoundError(
                    f"no note {echo(path)} in the index" + (f": {why}" if why else ""),
                    what="note",
                    finding="" if why else "list the notes to see their paths",
                    similar=[]
                    if why
                    else similar_notes(path, [(p, t) for _, p, t in vault.store.list_documents()]),
                )
        data = read_regular(
            resolve_inside(self._vault.root, doc.path), self._vault.settings.max_file_bytes
        )
        if data is None:  # a FIFO, socket or device in its place is never opened for reading
            raise NotFoundError(
                f"{echo(doc.path)} is no longer a readable regular file; scan the vault again"
            )
        return NoteText(path=doc.path, text=data.decode("utf-8", errors="replace"))

    def _why_not_indexed(self, vault: Vault, path: str) -> str | None:
        """Why a vault path holds no note (the scans' record, else the walk's rules), if a file."""
        from k0maru.index.scanner import why_not_indexed

        return why_not_indexed(vault.root, vault.settings, vault.skipped_files(), unescape(path))

    def note_view(self, path: str) -> NoteView:
        """A note with its outgoing links (resolved where possible) and backlinks."""
        from k0maru.fsutil import resolve_inside
        from k0maru.service.attachments import find_attachments, is_attachment_name
        from k0maru.service.models import NoteLink, NoteView

        resolve_inside(self._vault.root, path)
        with self._session.session() as vault:
            doc = vault.store.document_by_path(path) or vault.store.document_by_path(unescape(path))
            if doc is None:
                why = self._why_not_indexed(vault, path)
                raise NotFoundError(
                    f"no note {echo(path)} in the index" + (f": {why}" if why else "")
                )
            links = vault.store.links_from(doc.id)
            back = vault.store.backlinks(doc.id)
            tags = vault.store.tags_of(doc.id)
        files = find_attachments(
            self._vault.root,
            doc.path,
            {x["target"] for x in links if not x["path"] and is_attachment_name(x["target"])},
        )
        return NoteView(
            path=doc.path,
            title=doc.title,
            frontmatter=doc.frontmatter,
            body=doc.body,
            tags=tags,
            links=[
                NoteLink(
                    target=x["target"],
                    path=x["path"],
                    title=x["title"],
                    attachment=None if x["path"] else files.get(x["target"]),
                )
                for x in links
            ],
            backlinks=[NoteLink(path=b["path"], title=b["title"]) for b in back],
        )

    def conventions(self) -> VaultConventions:
        """The rules the vault's notes follow (folders, naming, templates), read from the vault."""
        from dataclasses import asdict

        from k0maru.notes.conventions import ConventionSniffer
        from k0maru.service.models import KindConvention, VaultConventions

        found = ConventionSniffer(self._vault.root, self._vault.settings.include).sniff()
        return VaultConventions(
            layout=found.layout,
            rule_files=found.rule_files,
            warnings=found.warnings,
            kinds={
                kind: KindConvention(
                    **{k: v for k, v in asdict(rule).items() if k != "record"},
                    record=asdict(rule.record) if rule.record else None,
                    explained=rule.explain(),
                )
                for kind, rule in found.rules.items()
            },
        )

    # ---- index -----------------------------------------------------------------------------------
    def init(self) -> VaultInit:
        """The vault's folders and index created where missing."""
        from k0maru.service.models import VaultInit

        with self._session.session(fresh=False, write=True) as vault:
            return VaultInit(vault=str(vault.root), done=vault.init())

    def scan(self, full: bool = False, rebuild: bool = False) -> ScanReport:
        """Incremental scan (all files with `full`; a new index with `rebuild`) and the BM25 index
        brought up to date; the report says where a rebuilt index's old file went (`moved_aside`);
        its `pending_embedding` counts the chunks the embedding worker has to do (0 when embedding
        is off or has no model). The caller asks `unchanged_scan` first (before importing any of
        this), so the walk snapshot is not asked again."""
        from k0maru.search.embedding import check_model
        from k0maru.service import worker
        from k0maru.service.models import SCAN_COUNTS, MovedIndex, ScanReport

        with self._session.session(fresh=False, write=True) as vault:
            if full and not rebuild:  # a full scan also vouches for the file it rewrites
                vault.store.require_sound()
            moved, why, data = (
                self._rebuild(vault)
                if rebuild
                else (None, "", self._index_all(vault, full).as_dict())
            )
            pending = vault.store.unembedded_chunks() if vault.settings.embed else 0
            model, warning = check_model(vault.settings.model_path, vault.settings.embed)
            if pending and model is None:
                data["warnings"].append(warning)
            readonly = vault.store.readonly
            data["warnings"] += worker.scan_bound(
                vault.root, pending if model and not readonly else 0
            )
            return ScanReport(
                **{f: data[f] for f in SCAN_COUNTS},
                warnings=data["warnings"],
                pending_embedding=pending if model and not readonly else 0,
                moved_aside=MovedIndex(path=str(moved), why=why) if moved else None,
            )

    def _index_all(self, vault: Vault, full: bool) -> IndexReport:
        return vault.index(
            full=full,
            snapshot_first=False,
            scan_progress=self._session.scan_progress,
            embed=False,
            lexical=True,
        )

    def _rebuild(self, vault: Vault) -> tuple[Path | None, str, dict[str, Any]]:
        """A new index built beside the old one (`<index>.new`, readers meanwhile answer from the
        old) from every note, the offload records and (from a sound old one) the vectors of the
        same texts put back, then swapped in whole by one rename:
        (where the old index went, why it was rebuilt, the scan's report). A build that fails
        leaves the old index in place, untouched, and says so in one line."""
        from k0maru.index import db, snapshot, store
        from k0maru.wiring.vault import Vault as Fresh
        from k0maru.wiring.vault import prune_old_copies, room_to_rebuild

        path = store.db_path(vault.root)
        room_to_rebuild(path)
        health = vault.health()
        kept = _readable_offloads(vault) if path.exists() else []
        new = store.beside(path)
        try:
            with Fresh(vault.root, vault.settings, index=new) as fresh:
                data = self._index_all(fresh, full=True).as_dict()
                data["warnings"] += _restore_offloads(fresh, kept)
                if not health:  # whole before the swap: the vectors of the same texts
                    fresh.store.carry_vectors(path)
            moved = store.swap_in(new, path, "corrupt" if health else "old", _open_or_none(vault))
        except (K0maruError, db.DatabaseError, OSError) as exc:
            store.discard(new)
            raise _rebuild_stopped(exc, new) from exc
        vault.close()  # this process's connections reopen the new index
        snapshot.forget(vault.root)
        prune_old_copies(path)
        return (
            moved,
            f"corrupt: {health}" if health else "healthy (quick_check ok), rebuilt on request",
            data,
        )

    def status(self, check: bool = True) -> VaultStatus:
        """What the index holds and lacks, and whether the worker runs; never creates an index.
        `check` reads the index and the offload sidecars back whole first (`k0maru status`); without
        it, the counts the index keeps (the dashboard, at every page load)."""
        from k0maru.index.store import db_path
        from k0maru.service.models import VaultStatus

        if not os.path.lexists(db_path(self._vault.root)):  # it only reports: never creates one
            raise K0maruError(
                f"no index in {self._vault.root}; run `k0maru scan` (or `k0maru init`) there first"
            )
        from k0maru.offload import records
        from k0maru.service import worker

        with self._session.session(fresh=False) as vault:
            unfinished = vault.missing_notes()
            problems = [unfinished] if unfinished else []
            problems += [*vault.take_repairs(), *vault.damage()] if check else []
            problems += [
                f"{path}: not a readable offload record; `k0maru scan --rebuild` writes it "
                "again from the index's record (or remove it)"
                for path in (records.unreadable_sidecars(vault.root) if check else [])
            ]
            # the worker is the one process that embeds the chunks still without vectors
            return VaultStatus(
                **vault.status(check), worker_running=worker.running(vault.root), problems=problems
            )

    def doctor(self, fix: bool = False) -> DoctorReport:
        """The whole integrity check (`Vault.doctor`: the file, every derived row against the
        notes', the vault it was built for, the model's checksum); with `fix`, derived parts are
        rebuilt from the notes (the notes whose rows were dropped indexed again at once), and a
        file too damaged for that by `scan(rebuild=True)`."""
        from k0maru.errors import IndexCorruptError
        from k0maru.index.store import db_path
        from k0maru.service.models import DoctorReport

        if not os.path.lexists(db_path(self._vault.root)):  # a link is refused by the open
            raise K0maruError(
                f"no index in {self._vault.root}", hint="run `k0maru scan` there first"
            )
        try:
            with self._session.session(fresh=False, write=fix) as vault:
                done, found = vault.doctor(fix)
                if fix and done and not (found or vault.store.readonly):  # notes a repair dropped
                    self._index_all(vault, full=False)
                self._session.embed_later()  # the chunks whose vectors a repair dropped
                done += _rewrite_sidecars(vault) if fix and not found else []
        except IndexCorruptError as exc:  # the line, and what to run, every command gives it
            done, found = [], [str(exc)]
        if not (fix and found):
            return DoctorReport(findings=found, repaired=done, sound=not found)
        moved = self.scan(rebuild=True).moved_aside
        done.append("rebuilt the index")
        return DoctorReport(findings=found, repaired=done, sound=True, moved_aside=moved)

    def index_gaps(self, limit: int = 2000) -> IndexGaps:
        """The files the scans skipped (with why), the links that lead to no note and those to a
        heading their note lacks, as the index recorded them; at most `limit` links of each. A
        link to an attachment that exists is not dangling; one naming a note by its title says
        which (Obsidian links by name, not title)."""
        from k0maru.service.attachments import missing_attachments
        from k0maru.service.models import DanglingLink, IndexGaps, SkippedFile

        headings = self._missing_headings(limit)
        with self._session.session(fresh=False) as vault:
            skipped = [SkippedFile(path=p, why=why) for p, why in vault.skipped_files()]
            rows = vault.store.dangling_links(limit + 1)
            titled = _titled(vault.store, [t for t, _, _ in rows])
        missing = missing_attachments(self._vault.root, [(src, t) for t, src, _ in rows])
        dangling = [
            DanglingLink(
                target=t,
                source=src,
                heading=h,
                attachment=(src, t) in missing,
                titled=titled.get(t.strip().casefold()),
            )
            for t, src, h in rows[:limit]
            if missing.get((src, t), True)
        ]
        return IndexGaps(
            skipped=skipped, dangling=dangling, truncated=len(rows) > limit, headings=headings
        )

    def _missing_headings(self, limit: int) -> list[DanglingLink]:
        """The wikilinks to a note found but to a heading it does not have (`[[Note#No such]]`),
        as the index recorded them; at most `limit` links are read. A block reference (`#^id`) is
        no heading: never listed; nor is a Markdown link's anchor (`heading_links`)."""
        from k0maru.service.models import DanglingLink

        with self._session.session(fresh=False) as vault:
            rows = vault.store.heading_links(limit)
            headings = vault.store.headings_of([dst for _, _, _, dst in rows])
        slugs = {doc: {heading_slug(h) for h in found} for doc, found in headings.items()}
        return [
            DanglingLink(target=target, source=source, heading=heading)
            for target, source, heading, dst in rows
            if not heading.startswith("^") and heading_slug(heading) not in slugs.get(dst, ())
        ]

    def backlog(self) -> IndexBacklog:
        """What the index lacks: files changed since the last scan, chunks without vectors."""
        from k0maru.service.models import IndexBacklog

        with self._session.session(fresh=False) as vault:
            return IndexBacklog(
                pending=vault.pending_changes(),
                chunks_pending_embedding=(
                    vault.store.unembedded_chunks() if vault.settings.embed else 0
                ),
            )

    def link_paths(self) -> LinkPaths:
        """Where every link key of the vault leads (`LinkPaths.path_of`)."""
        from k0maru.service.models import LinkPaths

        with self._session.session(fresh=False) as vault:
            return LinkPaths(
                resolve=vault.store.link_resolver(),
                paths={i: p for i, p, _ in vault.store.list_documents()},
            )

    def index_counts(self, fresh: bool = False) -> IndexCounts:
        """Counts from the index alone (no walk, no file read; `fresh`: after the rescan a page's
        list gets), each equal to the rows its list shows: the links to no note `index_gaps`
        lists, every tag and kind with the notes `notes(filters=...)` lists for it."""
        from k0maru.service.attachments import is_attachment_name
        from k0maru.service.models import IndexCounts, NamedCount

        with self._session.session(fresh=fresh) as vault:
            targets = [t for t, _, _ in vault.store.dangling_links(-1)]  # -1: no limit
            tags, kinds = vault.store.tag_counts(), vault.store.kind_counts()
        files = sum(1 for t in targets if is_attachment_name(t))
        return IndexCounts(
            links_to_no_note=len(targets) - files,
            attachment_links=files,
            tags=[NamedCount(name=t, notes=n) for t, n in tags.items()],
            kinds=[NamedCount(name=k, notes=n) for k, n in kinds.items()],
        )

    def freshness(self) -> str:
        """One line: how the index follows the vault's changes without `k0maru scan`."""
        from k0maru.gitutil import repo_root

        watched = getattr(self._session, "_watcher", None) is not None
        how = (
            "this process watches the vault's files and indexes each change before its next answer"
            if watched
            else "each k0maru command first indexes the files changed since the last look; "
            "`k0maru ui` and the MCP server watch the files"
        )
        git = (
            "a git repository: `k0maru hooks install` also reindexes at each commit"
            if repo_root(self._vault.root)
            else "not a git repository: no hook is needed"
        )
        return f"{how}; no `k0maru scan` needed ({git})"


def _lexical_without_embedding(mode: str, embed: bool) -> str:
    """The mode a search runs in: with `embed = false` no vector ever comes, so hybrid is BM25 (the
    answer names that mode) and vector is refused in one line."""
    if embed or mode == "bm25":
        return mode
    if mode == "vector":
        raise K0maruError(
            "embedding is off (embed = false, or K0MARU_EMBED=false): no vector search",
            hint="use --mode bm25 or hybrid",
        )
    return "bm25"


def _named(store: Store, name: str) -> DocRow | None:
    """The note `name` names as a link does (path suffix, file name, alias), else by its title;
    None where none does. Several notes of that file name or title are named in the error, to
    choose one by path."""
    from k0maru.index.link_resolution import key_name

    key = name.strip().strip("/").lower().removesuffix(".md")
    doc_id = store.link_resolver({key_name(key)})(key) if key else None
    if doc_id is not None:
        _one_named(store, key)
        return store.document(doc_id)
    paths = sorted(_by_title(store, [name]).get(name.strip().casefold(), [])) if key else []
    if len(paths) > 1:
        raise K0maruError(
            f"{len(paths)} notes have the title {echo(name.strip())}: "
            + ", ".join(map(repr, paths))
            + "; name one by its path"
        )
    return store.document_by_path(paths[0]) if paths else None


def _one_named(store: Store, key: str) -> None:
    """Refuses a bare name (no `/`) that several notes' file names answer to, naming them, unless
    one of them is the vault root's note of that name; a path's tail (`development/overview`)
    names one."""
    paths = [] if "/" in key else store.paths_named(key)
    if len(paths) > 1 and f"{key}.md" not in (p.lower() for p in paths):
        more = f" and {len(paths) - 5} more" if len(paths) > 5 else ""
        raise K0maruError(
            f"{len(paths)} notes are named {echo(key)}: "
            + ", ".join(map(repr, paths[:5]))
            + f"{more}; name one by its path"
        )


def heading_slug(heading: str) -> str:
    """A heading as links name it, by its text or its slug (`No Such Heading`, `no-such-heading`);
    of a nested `A#B`, the last."""
    import re

    text = " ".join(heading.rsplit("#", 1)[-1].split()).casefold()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _titled(store: Store, targets: Sequence[str]) -> dict[str, str]:
    """casefolded link target -> the path of the note with that title, for the targets that name
    a note by its title: `show` opens it, Obsidian does not (it links by file name and alias)."""
    return {title: paths[0] for title, paths in _by_title(store, targets).items()}


def _by_title(store: Store, titles: Sequence[str]) -> dict[str, list[str]]:
    """casefolded title -> the paths of the notes with that title in any case, the shortest
    first, for `titles` (the notes' titles read once; none read for no titles)."""
    wanted = {t.strip().casefold() for t in titles}
    found: dict[str, list[str]] = {}
    if not wanted:
        return found
    for _, path, title in sorted(store.list_documents(), key=lambda d: (len(d[1]), d[1])):
        if title and title.casefold() in wanted:
            found.setdefault(title.casefold(), []).append(path)
    return found


def _kept(hits: Sequence[RecallHit], explain: bool, min_score: float | None) -> list[RecallHit]:
    """The hits scoring at least `min_score`, without their per-channel detail unless `explain`."""
    return [h if explain else h.brief() for h in hits if min_score is None or h.score >= min_score]


# what a hit's score is on, by the mode that ranked it (`search --min-score`'s help says the same)
SCORE_SCALES = {
    "hybrid": "hybrid scores run from 0 to 1, plus any graph boost",
    "bm25": "bm25 scores run from 0 to 1, relative to the best hit",
    "vector": "vector scores run from 0 to 1: (cosine + 1) / 2",
}


def _all_below(
    found: Sequence[RecallHit], kept: Sequence[RecallHit], min_score: float | None, mode: str
) -> list[str]:
    """The line saying `min_score` left out every hit the ranking found, with the best score left
    out and the scale scores are on; none while a hit is kept (or none was found)."""
    if min_score is None or kept or not found:
        return []
    best = max(h.score for h in found)
    return [
        f"min score {min_score:g} left out all {len(found)} hit(s), the best scoring {best:.3f}: "
        + SCORE_SCALES.get(mode, SCORE_SCALES["hybrid"])
    ]


def _successor_paths(store: Store, named: dict[int, str], paths: set[str]) -> dict[int, str]:
    """What replaces each superseded hit as a vault path, as every hit is named: a name its own
    `superseded by` gives is resolved as its links are (path, file name, alias), else as a title;
    a name no note has stays as written ('' where it names nothing)."""
    from k0maru.index.link_resolution import key_name

    out = {}
    for i, name in named.items():
        key = _link_key(name)
        if name in paths or not key:
            out[i] = name
            continue
        doc = store.link_resolver({key_name(key)})(key)
        doc = doc if doc is not None else store.document_id_by_title(name)
        out[i] = store.path_and_title(doc)[0] if doc is not None else name
    return out


def _link_key(name: str) -> str:
    """The link key a `superseded by` value names: a wikilink's target or a Markdown link's
    destination (lower case, without `.md`, an alias or a heading)."""
    import re

    link = re.search(r"\]\(<?([^)>]+)", name)  # `[ADR 8](0008-x.md)`, its brackets stripped
    key = (link.group(1) if link else name).split("|")[0].split("#")[0].strip()
    return key.lower().removesuffix(".md").lstrip("/")


def _check_kind(kind: str, present: set[str]) -> None:
    """Refuse a kind of note that neither k0maru nor any note of the vault knows, naming the
    kinds the notes here have (as a search for a known kind no note has does, `recall.py`)."""
    from k0maru.notes.conventions import KINDS
    from k0maru.suggest import close_names

    known = sorted(set(KINDS) | present)
    if kind.strip().lower() in known:
        return
    maybe = close_names(kind, known, 1)
    raise K0maruError(
        f"unknown kind {echo(kind)}"
        + (f"; did you mean {maybe[0]}?" if maybe else ";")
        + f" the kinds of note here: {', '.join(sorted(present)) or 'none'}"
    )


def _open_or_none(vault: Vault) -> Store | None:
    """The vault's open index, None when it does not open (damaged: a rebuild moves it as it is)."""
    from k0maru.index import db

    try:
        return vault.store
    except (K0maruError, db.DatabaseError):
        return None


def _rebuild_stopped(exc: BaseException, new: Path) -> K0maruError:
    """A rebuild's build that failed, as one line: the old index was never touched."""
    from k0maru.index import db

    if isinstance(exc, db.DatabaseError):
        exc = db.translate_error(exc, new)
    error = exc if isinstance(exc, K0maruError) else K0maruError(str(exc))
    said = f"the rebuild stopped ({error.reason}); the old index stays in place"
    try:  # its kind kept: the exit code says a full disk, a read-only folder
        return type(error)(said, hint=error.hint)
    except TypeError:
        return K0maruError(said, hint=error.hint)


def _readable_offloads(vault: Vault) -> list[OffloadRecord]:
    """The offload records an index about to be rebuilt still reads back (none when it cannot)."""
    from k0maru.offload import records

    try:
        return records.readable(vault.store)
    except Exception:  # a damaged index: its records come from the sidecars alone
        return []


def _rewrite_sidecars(vault: Vault) -> list[str]:
    """The offload sidecars that do not read back, written again from the index's records."""
    from k0maru.offload import records

    root = vault.root
    bad = set(records.unreadable_sidecars(root))
    kept = _readable_offloads(vault) if bad else []
    lost = [r for r in kept if str(records.sidecar_of(root, r).relative_to(root)) in bad]
    return [
        f"{records.write_sidecar(root, r).relative_to(root)}: written again from the index's record"
        for r in lost
    ]


def _restore_offloads(vault: Vault, kept: list[OffloadRecord]) -> list[str]:
    """A rebuilt index's offload records put back from their sidecars, and from the old index those
    whose sidecar does not read back (the sidecar is written again); lines on what was done."""
    from k0maru.offload import records

    restored = records.restore(vault.store, vault.root)
    rewritten = records.restore_from(vault.store, vault.root, kept)
    lines = [f"restored {restored} offload record(s) from their sidecars"] if restored else []
    lines += [f"{path}: written again from the old index's record" for path in rewritten]
    return lines + [
        f"{path}: not a readable offload record and the old index had none; its log stays on "
        "disk, its summary is lost"
        for path in records.unreadable_sidecars(vault.root)
    ]


def database_error(exc: BaseException) -> K0maruError | None:
    """An SQLite error raised anywhere below as one actionable line; None for any other
    exception."""
    from k0maru.index import db

    if not isinstance(exc, db.DatabaseError):
        return None
    return db.translate_error(exc, db.last_opened or "the index")


def answer_tokens(result: RecallResult, over: int | None = None) -> int:
    """What the answer costs an agent: its compact JSON, counted with the LLM tokenizer."""
    import json

    from k0maru.llm_tokens import count_tokens

    return count_tokens(json.dumps(result.payload(), ensure_ascii=False, separators=(",", ":")))


def fit_budget(
    result: RecallResult,
    budget: int,
    cost: Callable[[RecallResult, int | None], int] = answer_tokens,
) -> RecallResult:
    """`result` within `budget` tokens as `cost(result, over)` counts them (given `over`, it may
    stop counting once a part of the answer is over that). Every hit stays if its passages, cut
    evenly (at a word, with "…"), fit at `MIN_PASSAGE_CHARS` or more; else the lowest-ranked hits go
    until they do, so no kept passage becomes a stub while dropping hits can make room. The answer
    says what was cut (`left_out`, `passages_cut`) and what it costs whole (`whole_tokens`). All
    the hits are tried first: they mostly fit."""
    from k0maru.llm_tokens import largest

    whole = cost(result, None)
    if whole <= budget:
        return result

    def fits(candidate: RecallResult) -> bool:
        return cost(candidate, budget) <= budget

    def trial(count: int, cap: int) -> RecallResult:
        kept = [h.but(snippet=shorten(h.snippet, cap, at_word=True)) for h in result.hits[:count]]
        return result.but(
            hits=kept,
            left_out=len(result.hits) - count,
            passages_cut=sum(
                k.snippet != h.snippet for k, h in zip(kept, result.hits, strict=False)
            ),
            whole_tokens=whole,
        )

    most = len(result.hits)
    if most and fits(trial(most, MIN_PASSAGE_CHARS)):
        count = most
    else:
        count = largest(most - 1, lambda n: fits(trial(n, MIN_PASSAGE_CHARS)))
    caps = [c for c in PASSAGE_CAPS if (c >= MIN_PASSAGE_CHARS) == (count > 0)]
    for cap in caps:  # the longest passages that fit; a lone hit may go below the floor
        candidate = trial(max(count, 1), cap)
        if fits(candidate):
            return candidate
    least = cost(trial(1, caps[-1]), None) if result.hits else None  # the first hit, cut most
    first = f"; the first takes {least}" if least else ""
    return result.but(
        hits=[],
        warnings=[*result.warnings, f"a budget of {budget} tokens is too small for any hit{first}"],
    )


def fit_loadout(
    build: Callable[[int], Loadout], budget: int, cost: Callable[[Loadout], int]
) -> Loadout:
    """The loadout built once for `budget`, its `tokens_used` the whole answer as `cost` counts
    it (headers and keys too); where that is over `budget`, its last ranked sections go, the
    closing ones (how to write notes here, what was left out) kept while they fit."""
    from k0maru.llm_tokens import largest
    from k0maru.service.models import CLOSING_SECTIONS

    result = build(budget).but(tokens_used=budget)  # counted with the widest number it can show
    if cost(result) > budget:
        ranked = [s for s in result.sections if s.kind not in CLOSING_SECTIONS]
        closing = [s for s in result.sections if s.kind in CLOSING_SECTIONS]

        def kept(n: int, end: list[Any]) -> Loadout:
            return result.but(sections=[*ranked[:n], *end], truncated=True)

        n = largest(len(ranked), lambda n: cost(kept(n, closing)) <= budget)
        result = kept(n, closing) if cost(kept(n, closing)) <= budget else kept(0, [])
    return result.but(tokens_used=cost(result))
