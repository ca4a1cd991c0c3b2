"""One open vault: settings, the index store, the embedding model and recall, created lazily.

Each thread reads through its own connection (`store`, `recall`: WAL readers never wait for a
writer); the model and the BM25 cache of the index file are shared by the threads of a process."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, Unpack

from k0maru.config import Settings, default_config_toml, load_settings
from k0maru.errors import K0maruError
from k0maru.fsutil import atomic_write_text, ensure_state_dir
from k0maru.index import db, snapshot
from k0maru.index.bm25_store import Bm25Store
from k0maru.index.db import sqlite_route
from k0maru.index.scan_result import REBUILDING, SKIPPED, WALK_SKIPS, ProgressFn, ScanResult
from k0maru.index.store import Store, db_path
from k0maru.layout import CONFIG_FILE, STATE_DIR, resolve_vault
from k0maru.memory import release_free_memory

if TYPE_CHECKING:  # heavy modules (numpy, onnxruntime, bm25s) load only when a command needs them
    from collections.abc import Callable

    from k0maru.notes.conventions import Conventions
    from k0maru.search.embedding import Embedder
    from k0maru.search.lexical import LexicalCache
    from k0maru.search.recall import Recall


@dataclass(slots=True)
class IndexReport:
    scan: ScanResult
    embedded: int = 0
    embed_ms: float = 0.0
    warnings: list[str] = field(default_factory=list)
    merge_due: bool = False  # the BM25 delta is due a merge that this run left to the background
    reused: int = (
        0  # new chunks that got the vector of the same text (renames, moves, branch switches)
    )

    def as_dict(self) -> dict[str, Any]:
        s = self.scan
        return {
            **s.counts(),
            "elapsed_ms": round(s.elapsed_ms + self.embed_ms, 2),
            "scan_ms": round(s.elapsed_ms, 2),
            "touched": s.touched,
            "files_read": s.files_read,
            "new_chunks": s.new_chunks,
            "symlinks": s.symlinks,
            "embedded": self.embedded,
            "vectors_reused": self.reused,
            "embed_ms": round(self.embed_ms, 2),
            "warnings": s.warnings + self.warnings,
        }


@dataclass(frozen=True, kw_only=True)
class IndexOptions:
    """What one `Vault.index` run does.

    full: re-read and re-parse every file. only: index these vault paths, not the whole vault.
    embed: embed the chunks that have no vector yet, at most `embed_limit` of them. record: keep
    the scan's counts. lexical: also merge the BM25 delta when it is due; a server's or a query's
    run passes `merge=False`: a merge due is then only reported (`merge_due`), for the background
    thread or the worker to do. snapshot_first: ask the walk snapshot first (False when the caller
    has just asked, as the CLI's scan does, so a vault with changes is not walked one time more).
    limit: at most this many new or changed files are indexed, the latest first (a reader's share
    of a backlog; `scan.deferred` counts the rest). keep_delta: the background worker's run, after
    the answer: keep the BM25 delta of the version it leaves (plain Python, no numpy), so the next
    query tokenises none of the notes this run indexed."""

    full: bool = False
    only: list[str] | None = None
    embed: bool = True
    scan_progress: ProgressFn | None = None
    embed_progress: ProgressFn | None = None
    record: bool = True
    lexical: bool = False
    embed_limit: int | None = None
    snapshot_first: bool = True
    merge: bool = True
    limit: int | None = None
    keep_delta: bool = False


class IndexChoices(TypedDict, total=False):
    """`IndexOptions` by keyword: `vault.index(only=[path], embed=False)`."""

    full: bool
    only: list[str] | None
    embed: bool
    scan_progress: ProgressFn | None
    embed_progress: ProgressFn | None
    record: bool
    lexical: bool
    embed_limit: int | None
    snapshot_first: bool
    merge: bool
    limit: int | None
    keep_delta: bool


CONVENTIONS_TTL_S = 60.0
IDLE_CHECK_S = 3600.0  # the worker's whole integrity check runs at most this often
CHECKED_AT = "integrity_checked_at"  # meta: when it last ran
MODEL_DIGEST = "embed_model_sha256"  # the model file's checksum when its vectors were made


class Vault:
    def __init__(self, root: Path, settings: Settings, index: Path | None = None):
        """`index`: another index file than the vault's own (a rebuild builds its new one there)."""
        self.root = root
        self.settings = settings
        self.index_path = index
        self._local = threading.local()  # this thread's store and recall
        self._stores: dict[threading.Thread, Store] = {}  # every open one, closed by close()
        self._lexical: tuple[object, LexicalCache] | None = None  # (file identity, its BM25 cache)
        self._guard = threading.Lock()
        self._model_lock = threading.Lock()
        self._conventions: tuple[float, Conventions] | None = None  # (when sniffed, what was found)
        self._sniffing = threading.Lock()  # held while the conventions are sniffed
        self._embedder: Embedder | None = None
        self._embedder_loaded = False
        self.model_warning: str | None = None
        self.one_shot = (
            False  # a process that answers once and exits: load the model unoptimised (Embedder)
        )
        self.lean = (
            False  # the embedding worker: an index connection that maps nothing and caches little
        )
        self.repairs: list[str] = []  # what the open checks repaired, for the next answer to say

    @classmethod
    def open(
        cls,
        vault: str | os.PathLike[str] | None = None,
        *,
        writes_state: bool = False,
        create: bool = False,
        **flags: Any,
    ) -> Vault:
        """`writes_state`: the command writes under `.k0maru/` anyway, so create it first and the
        settings cache is written on this first run too. `create`: the cwd may become a new vault
        (`init`)."""
        root = resolve_vault(vault, create=create)
        if writes_state:
            ensure_state_dir(root)
        return cls(root, load_settings(root, **flags))

    @property
    def state_dir(self) -> Path:
        return self.root / STATE_DIR

    @property
    def _store(self) -> Store | None:
        """This thread's open store, if any."""
        store: Store | None = getattr(self._local, "store", None)
        return (
            store
            if store is not None and self._stores.get(threading.current_thread()) is store
            else None
        )

    @property
    def store(self) -> Store:
        """This thread's connection to the index (opened on first use)."""
        store = self._store
        if store is None:
            store = Store.open(
                self.root, self.settings.busy_timeout_ms, lean=self.lean, path=self.index_path
            )
            try:
                self._repaired(store.open_checks())
            except K0maruError:
                store.close()
                raise
            self._local.store, self._local.recall = store, None
            with self._guard:
                for gone in [t for t in self._stores if not t.is_alive()]:
                    self._stores.pop(gone).close()  # its thread ended: nobody uses it any more
                self._stores[threading.current_thread()] = store
        return store

    def _repaired(self, lines: list[str]) -> None:
        """Keep what a repair did for the next answer to say (`IndexReport.warnings`); rows of a
        note it removed make the next scan walk, to index that note again."""
        if lines:
            snapshot.forget(self.root)
            with self._guard:
                self.repairs += lines

    def take_repairs(self) -> list[str]:
        """What repairs were made since the last call (each said once)."""
        with self._guard:
            lines, self.repairs = self.repairs, []
        return lines

    def doctor(self, fix: bool) -> tuple[list[str], list[str]]:
        """The whole check: the file (SQLite's quick_check, its tables), every derived row against
        the notes' (`integrity_store.deep`), every row decoded (`file_problem`) and the
        model file against the one the vectors were made with. Returns (what was repaired, what
        is wrong); with `fix`, the derived rows are rebuilt from the notes' first."""
        store = self.store  # the open checks repair the counts, said in take_repairs
        problem = store.integrity_problem() or store.missing_tables()
        if problem:
            return self.take_repairs(), [f"the index file is damaged: {problem}"]
        if fix:
            self._repair_deep(store)
        found = [f"the index is damaged: {f.what}" for f in store.damage()]
        found += self._offload_records(store, fix)
        if not found:  # what only the notes' files and the model tell (never on `status`)
            found += self._read_notes_back(store, fix)
        problem = store.file_problem()  # the derived rows' damage is named above, once
        found += [f"the index does not read back: {problem}"] if problem else []
        found += [m] if (m := self._model_changed(fix)) else []
        return self.take_repairs(), found

    def _offload_records(self, store: Store, fix: bool) -> list[str]:
        """What `integrity_store.offloads` finds, a line each; with `fix`, the records put back
        from their sidecars and those of no log dropped (`take_repairs` says what)."""
        from k0maru.index import integrity_store
        from k0maru.offload import records

        found = integrity_store.findings(store, integrity_store.offloads)
        if not (fix and found) or store.readonly:
            return [f"the index is damaged: {f.what}" for f in found]
        _, logless = store.offload_gaps()
        restored = records.restore(store, self.root)
        store.delete_offloads(logless)
        self._repaired(
            [f"restored {restored} offload record(s) from their sidecars"] * bool(restored)
            + [f"dropped {len(logless)} offload record(s) whose log is gone"] * bool(logless)
        )
        return []

    def _read_notes_back(self, store: Store, fix: bool) -> list[str]:
        """`doctor`'s checks against the notes' files and the model (`integrity_store.note_files`,
        `sampled_vectors`); with `fix`, what they find is repaired (`take_repairs` says what)."""
        from k0maru.index import integrity_store

        s, embedder = self.settings, (self.embedder if self.settings.embed else None)
        embed = embedder.embed if embedder is not None else None
        check = integrity_store.reading_back(self.root, s.chunk_chars, s.max_file_bytes, embed)
        found = integrity_store.findings(store, check)
        if fix and found and not store.readonly:
            self._repaired(store.repair(check))
            return []
        return [f"the index is damaged: {f.what}" for f in found]

    def damage(self) -> list[str]:
        """What the whole check of the derived rows finds wrong (`integrity_store.deep`, the
        offload records against their logs, the model file), a line each naming `k0maru doctor
        --fix`; none when the file itself is damaged (`reader_problem` names that)."""
        from k0maru.index import integrity_store

        try:
            found = [f.what for f in self.store.damage()]
            found += [
                f.what for f in integrity_store.findings(self.store, integrity_store.offloads)
            ]
            found += [m] if (m := self._model_changed(False)) else []
        except (K0maruError, db.DatabaseError):
            return []
        return [f"the index is damaged: {what}; `k0maru doctor --fix` repairs it" for what in found]

    def idle_check(self, every_s: float = IDLE_CHECK_S) -> list[str]:
        """The worker's whole check, once `every_s` have passed since the last one: what
        `_repair_deep` repaired, a line each."""
        store = self.store
        last = float(store.get_meta(CHECKED_AT) or 0)
        if store.readonly or time.time() - last < every_s:
            return []
        self._repair_deep(store)
        with contextlib.suppress(K0maruError), store.transaction():
            store.set_meta(CHECKED_AT, str(time.time()))
        return self.take_repairs()

    def _repair_deep(self, store: Store) -> None:
        """Repair what the whole check (`integrity_store.deep`) finds in the derived rows, when the
        file itself is sound (`take_repairs` says what was done)."""
        from k0maru.index import integrity_store

        with contextlib.suppress(db.DatabaseError):
            if store.integrity_problem() or store.missing_tables():
                return
            if store.damage():
                db.forget_corrupt(store.path)  # the file is sound: what a reader met is repaired
                self._repaired(store.repair(integrity_store.deep))

    def _model_changed(self, fix: bool) -> str | None:
        """Whether the model file differs from the one the vectors were made with (its SHA-256, kept
        with the first vectors); with `fix`, every chunk is embedded again, by this file."""
        digest = model_digest(self.settings.model_path)
        kept = self.store.get_meta(MODEL_DIGEST)
        if digest is None or kept is None or kept == digest or not self.store.has_vectors():
            return None
        if fix:
            self.store.reset_vectors(self.store.get_meta("embed_model") or "")
            self._repaired(["the model file changed since its vectors were made: re-embedding"])
            return None
        return "the model file changed since the vectors were made (its checksum differs)"

    def reopen_if_replaced(self) -> str | None:
        """Close this thread's connection when the file at the index's path is no longer the one it
        holds (a rebuild moved it aside, a person deleted or replaced it), so the next use opens the
        one there now; every thread's when a write-ahead log was deleted (`_after_lost_log`).
        Returns what happened, None when nothing did."""
        store = self._store
        if store is not None and store.replaced():
            with self._guard:
                self._stores.pop(threading.current_thread(), None)
            self._local.store = self._local.recall = None
            store.close()
            return "the index file was deleted or replaced (a rebuild?); reopened the one there now"
        return self._after_lost_log()

    def _after_lost_log(self) -> str | None:
        """When any thread's connection writes a log that was deleted or replaced: every other
        connection closed (a read in flight too: it would hold the merge back), what the log held
        written into the index through that one, then it closed too. One left open keeps the
        shared memory that counts the lost frames: each connection opened beside it fails."""
        with self._guard:
            lost = next(
                (s for s in self._stores.values() if s.wal_lost() and not s.replaced()), None
            )
            if lost is None:
                return None
            stores, self._stores = list(self._stores.values()), {}
        self._local.store = self._local.recall = None
        for other in stores:
            if other is not lost:
                other.close()
        lost.save_lost_wal()
        lost.close()
        snapshot.forget(self.root)  # the next scan walks for real
        return (
            "the index's write-ahead log was deleted or replaced; its changes were written "
            "into the index and the index reopened"
        )

    def close(self) -> None:
        """Close every connection (no thread may be using one: the session waits for its
        readers)."""
        with self._guard:
            stores, self._stores = list(self._stores.values()), {}
            self._lexical = None
        self._local.store = self._local.recall = None
        for store in stores:
            store.close()

    def conventions(self) -> Conventions:
        """Where each kind of note goes, sniffed from the vault (a walk that reads frontmatter):
        once, then at most once per `CONVENTIONS_TTL_S` in a long-running process, in a thread while
        the last answer serves (a flush never waits for that walk, but a process's first)."""
        from k0maru.notes.conventions import ConventionSniffer

        known = self._conventions
        if known is None:
            with self._sniffing:  # a thread may be at it already
                if self._conventions is None:
                    self._conventions = (time.monotonic(), ConventionSniffer(self.root).sniff())
                return self._conventions[1]
        if time.monotonic() - known[0] > CONVENTIONS_TTL_S:
            self.sniff_conventions_later()
        return known[1]

    def sniff_conventions_later(self, after: Callable[[], bool] | None = None) -> None:
        """Sniff the conventions again in a thread of their own (servers: at start, once `after`
        returns True, then when stale); none is started while a sniff is under way."""

        def run() -> None:
            if after is not None and not after():
                return
            from k0maru.notes.conventions import ConventionSniffer  # its import waits too

            if not self._sniffing.acquire(blocking=False):  # a flush sniffed meanwhile, or is at it
                return
            try:
                self._conventions = (time.monotonic(), ConventionSniffer(self.root).sniff())
            except Exception:  # the next flush sniffs again
                pass
            finally:
                self._sniffing.release()

        if not self._sniffing.locked():
            threading.Thread(target=run, name="k0maru-conventions", daemon=True).start()

    def lexical_cache(self, store: Bm25Store) -> LexicalCache:
        """The BM25 cache of the index file `store` holds, shared by every thread of the process."""
        from k0maru.search.lexical import LexicalCache

        with self._guard:
            if self._lexical is None or self._lexical[0] != store.identity:
                # a process that answers many queries scores over arrays; a one-shot one, in plain
                # Python, never imports numpy
                if self.one_shot:
                    cache = LexicalCache()
                else:
                    from k0maru.search.lexical_arrays import ArrayIndex

                    cache = LexicalCache(ArrayIndex)
                self._lexical = (store.identity, cache)
            return self._lexical[1]

    def __enter__(self) -> Vault:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def embedder(self) -> Embedder | None:
        with self._model_lock if not self._embedder_loaded else contextlib.nullcontext():
            if not self._embedder_loaded:  # loaded once for every thread
                from k0maru.search.embedding import load_embedder

                s = self.settings
                self._embedder, self.model_warning = load_embedder(
                    s.model_path, s.embed_threads, s.embed, optimize=not self.one_shot
                )
                self._embedder_loaded = True
        return self._embedder

    @property
    def recall(self) -> Recall:
        """This thread's recall over its own connection, with the process's shared BM25 cache."""
        store = self.store
        recall: Recall | None = self._local.recall
        if recall is None:
            from k0maru.search.recall import Recall

            recall = Recall(store, self.settings, lambda: (self.embedder, self.model_warning))
            recall.lexical = self.lexical_cache(store)
            self._local.recall = recall
        return recall

    # ---- commands ----------------------------------------------------------------------------
    def init(self) -> list[str]:
        """Create .k0maru/ (ignored by git through its own .gitignore), a commented config and the
        index; returns what was done."""
        done: list[str] = []
        ensure_state_dir(self.root)
        config = self.state_dir / CONFIG_FILE
        if not config.exists():
            atomic_write_text(config, default_config_toml())
            done.append(f"wrote {config.relative_to(self.root)}")
        self.store  # noqa: B018 - creates the index file and schema
        done.append(f"index at {db_path(self.root).relative_to(self.root)}")
        return done

    def index(
        self, options: IndexOptions | None = None, /, **choices: Unpack[IndexChoices]
    ) -> IndexReport:
        """Incremental scan (of `only`, else everything), then embed the chunks that have no vector
        yet; what each option does: `IndexOptions`. `options` and `choices` (the same, by keyword)
        together: the keywords win. A whole-vault run that a walk shows has nothing to do
        (snapshot.py) stops after the walk, and one that finds only files changed, in folders that
        did not, reads those files without walking again."""
        run = replace(options or IndexOptions(), **choices)
        walk = self._known_walk(run)
        if isinstance(walk, int):
            return IndexReport(ScanResult(unchanged=walk))
        last_chunk = self.store.last_chunk_id()
        from k0maru.index.scanner import IncrementalScanner
        from k0maru.wiring.kind_folders import named_kind_folders

        scan = IncrementalScanner(self.store, self.settings, named_kind_folders).scan(
            full=run.full,
            only=run.only,
            progress=run.scan_progress,
            record=run.record,
            limit=run.limit,
            walk=walk,
        )
        report = IndexReport(scan, reused=self._reuse_vectors(scan, last_chunk))
        report.warnings += self.take_repairs()
        if run.lexical:  # before embedding: a large change is searchable at full speed while
            self._merge_if_due(report, run.merge)  # vectors follow
        if run.keep_delta and scan.changed and not report.merge_due:
            from k0maru.search.lexical import keep_delta

            keep_delta(self.store)
        if run.embed and self.settings.embed and self.store.has_unembedded_chunks():
            self._embed_pending(report, run)
        self._keep_snapshot(scan, run.lexical and not report.merge_due)
        return report

    def index_note(self, path: str) -> None:
        """Index the note just written at `path` (a flush's, a distill's): searchable by BM25 on
        return, its vectors follow in the background (never the backlog's wait)."""
        self.index(only=[path], embed=False)

    def _reuse_vectors(self, scan: ScanResult, last_chunk: int) -> int:
        """The chunks just added (after `last_chunk`) whose text had a vector before get it, not
        the model's time; how many."""
        if scan.new_chunks and self.settings.embed and not self.store.readonly:
            return self.store.reuse_vectors(after_id=last_chunk)
        return 0

    def _known_walk(self, run: IndexOptions) -> snapshot.Walk | int | None:
        """What the walk snapshot's check knows of a whole-vault run (`snapshot.known_walk`): the
        number of unchanged files when nothing changed, the walk when only files changed in the
        same folders; None when the run walks anyway."""
        if run.only is not None or run.full or not run.snapshot_first:
            return None
        s = self.settings
        return snapshot.known_walk(
            self.root, s.include, s.exclude, s.max_file_bytes, run.embed and s.embed
        )

    def _merge_if_due(self, report: IndexReport, merge: bool) -> None:
        """Merge the BM25 delta into its main segment when it has grown past `Bm25State.merge_due`
        (or there is no segment yet); without `merge`, a merge due is only reported."""
        state = self.store.bm25_state()
        if state is not None and state.merge_due and not merge:
            report.merge_due = True  # a query reads the persisted segment plus the delta
        elif state is None or state.merge_due:  # else the delta serves queries, nothing is loaded
            self.merge_bm25(self.store)

    def _embed_pending(self, report: IndexReport, run: IndexOptions) -> None:
        """Embed the chunks that have no vector yet (at most `run.embed_limit`), into `report`."""
        from k0maru.search import vectors

        if not self._embedder_loaded:
            release_free_memory()  # what the scan and a BM25 build freed, before the model loads
        embedder = self.embedder
        if embedder is None:
            report.warnings.append(self.model_warning or "no embedding model")
            return
        if self.store.get_meta(MODEL_DIGEST) is None and (
            d := model_digest(self.settings.model_path)
        ):
            with self.store.transaction():  # what `doctor` compares the model file with
                self.store.set_meta(MODEL_DIGEST, d)
        t0 = time.perf_counter()
        report.embedded = vectors.embed_pending(
            self.store,
            embedder,
            self.settings.embed_batch,
            run.embed_progress,
            limit=run.embed_limit,
            stop=self.store.replaced,  # a rebuild moved the file: go on in the new one
        )
        report.embed_ms = (time.perf_counter() - t0) * 1000

    def merge_bm25(self, store: Bm25Store) -> None:
        """Fold the BM25 delta into a rebuilt, persisted main segment, through `store` (a background
        thread's own connection, or the vault's), into this process's lexical cache."""
        self.lexical_cache(store).get(store, merge=True)

    def _keep_snapshot(self, scan: ScanResult, lexical: bool) -> None:
        """Record the walk when this index run left nothing for the next scan to do
        (snapshot.py)."""
        s = self.settings
        # pending vectors: checked on use
        current = (
            scan.walked is not None
            and scan.corpus_version is not None
            and lexical
            and not (scan.skipped or scan.symlinks or scan.warnings)
        )
        with contextlib.suppress(
            OSError
        ):  # a read-only state folder: every scan walks in full, as before
            if not current:
                snapshot.forget(self.root)
                return
            snapshot.save(
                self.root,
                scan.walked or "",
                scan.folders,
                scan.corpus_version or 0,
                snapshot.scan_key(s.include, s.exclude, s.max_file_bytes),
                scan.signatures,
            )

    def changed_paths(self) -> list[str]:
        """The files new, possibly changed or removed since the index saw them (a walk with stat()
        only)."""
        from k0maru.index.scanner import IncrementalScanner

        return IncrementalScanner(self.store, self.settings).pending_paths()

    def pending_changes(self) -> dict[str, int]:
        """New, changed and removed files the index has not seen yet (a walk with stat() only)."""
        from k0maru.index.scanner import IncrementalScanner

        return IncrementalScanner(self.store, self.settings).pending()

    def skipped_files(self) -> list[tuple[str, str]]:
        """(vault path, why) of the files the scans skipped and the folders and links the last whole
        walk did not follow, as the scans recorded them (no walk here), by path."""
        import json

        found: dict[str, str] = {}
        with contextlib.suppress(ValueError, TypeError):
            for path, why in json.loads(self.store.get_meta(WALK_SKIPS) or "[]"):
                found[str(path)] = str(why)
        with contextlib.suppress(ValueError, AttributeError):
            for path, stat in json.loads(self.store.get_meta(SKIPPED) or "{}").items():
                found[path] = (
                    str(stat[2]) if len(stat) > 2 else "skipped (run `k0maru scan` for why)"
                )
        return sorted(found.items())

    def missing_notes(self) -> str | None:
        """What a rebuild that stopped before its scan finished, or an index emptied (a file
        truncated to nothing opens as a new index), left out; None when neither happened."""
        rebuilding = self.store.get_meta(REBUILDING) == "1"
        if not rebuilding and self.store.counts()["documents"]:
            return None
        missing = self.pending_changes()["new"]
        if not missing:
            return None
        why = "a rebuild stopped before it finished" if rebuilding else "the index is empty"
        return f"{why}: {missing} note(s) are not in the index; run `k0maru scan`"

    def health(self) -> str | None:
        """None when the index opens and reads back whole (`reader_problem`), else what is wrong."""
        from k0maru.errors import IndexCorruptError

        if not db_path(self.root).exists():
            return None
        try:
            return self.store.reader_problem()
        except IndexCorruptError as exc:
            return exc.damage
        except (K0maruError, db.DatabaseError) as exc:
            return " ".join(str(exc).split())[:120]

    def status(self, check: bool = True) -> dict[str, Any]:
        """What the index holds, from the counts it keeps; `check` first decodes what a reader would
        read (every table, the BM25 segment, the vectors) and raises on damage."""
        store = self.store
        if check:
            store.require_readable()  # what a reader would read, decoded: not only quick_check
        counts = store.counts()
        last = store.last_scan()
        bm25 = store.bm25_state()
        if self._embedder_loaded:
            embedder_name, warning = (
                (self._embedder.name if self._embedder else None),
                self.model_warning,
            )
        else:  # status reports the model without loading it (onnxruntime and the weights)
            from k0maru.search.embedding import check_model

            embedder_name, warning = check_model(self.settings.model_path, self.settings.embed)
        return {
            "vault": str(self.root),
            "index": str(store.path),
            "db_size_bytes": store.db_size_bytes(),
            "old_copies": len(copies := store.old_copies()),
            "old_copies_bytes": sum(p.stat().st_size for p in copies if p.exists()),
            "schema_version": store.schema_version(),
            "sqlite": sqlite_route(),
            "model": embedder_name,
            "model_warning": warning,
            **counts,
            "chunks_pending_embedding": (  # with embedding off, no chunk waits for a vector
                counts["chunks"] - counts["chunks_embedded"] if self.settings.embed else 0
            ),
            "bm25_main_chunks": bm25.chunks if bm25 else None,  # the persisted segment ...
            "bm25_delta_chunks": bm25.backlog if bm25 else None,  # ... and what queries add to it
            "last_scan": last,
            "last_scan_age_s": round(time.time() - last["started_at"], 1) if last else None,
        }


def model_digest(model_path: str) -> str | None:
    """The SHA-256 of the embedding model file, None when there is none."""
    import hashlib

    from k0maru.search.embedding import ModelUnavailable, model_file

    try:
        with model_file(Path(model_path) if model_path else None).open("rb") as f:
            return hashlib.file_digest(f, "sha256").hexdigest()
    except (ModelUnavailable, OSError):
        return None


def room_to_rebuild(path: Path) -> None:
    """Refuse a rebuild, before anything moves, that could not be whole: a state folder that
    cannot be written, or a disk with less room than the index takes now."""
    from k0maru.errors import IndexDiskFullError, IndexReadOnlyError

    if path.exists() and not os.access(path.parent, os.W_OK):
        raise IndexReadOnlyError(
            f"{path.parent} cannot be written: no rebuild, the old index stays in place",
            hint="make .k0maru/ writable (chmod u+w)",
        )
    need = sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.is_file())
    with contextlib.suppress(OSError):
        st = os.statvfs(path.parent)
        free = st.f_bavail * st.f_frsize
        if free < need + (1 << 20):  # the new index takes about what the old one does
            raise IndexDiskFullError(
                f"only {free / 1e6:.1f} MB free beside the index ({need / 1e6:.1f} MB): no "
                "rebuild, the old index stays in place",
                hint="free some space, then run `k0maru scan --rebuild`",
            )


KEEP_OLD_COPIES = 2  # index files moved aside by rebuilds that are kept; older ones are removed


def prune_old_copies(path: Path, keep: int = KEEP_OLD_COPIES) -> None:
    """Remove all but the newest `keep` copies of the index rebuilds moved aside (with their
    WAL)."""
    from k0maru.index.base_store import old_copies

    copies = old_copies(path)
    for old in copies[: max(0, len(copies) - keep)]:
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(OSError):
                old.with_name(old.name + suffix).unlink()
