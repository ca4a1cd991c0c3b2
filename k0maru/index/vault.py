"""One open vault: settings, the index store, the embedding model and recall, created lazily."""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from k0maru.config import Settings, default_config_toml, load_settings
from k0maru.fsutil import atomic_write_text, ensure_state_dir
from k0maru.index import snapshot
from k0maru.index.db import sqlite_route
from k0maru.index.scanner import IncrementalScanner, ProgressFn, ScanResult
from k0maru.index.store import Store, db_path
from k0maru.layout import CONFIG_FILE, STATE_DIR, resolve_vault
from k0maru.memory import release_free_memory

if TYPE_CHECKING:  # heavy modules (numpy, onnxruntime, bm25s) load only when a command needs them
    from k0maru.search.embedding import Embedder
    from k0maru.search.recall import Recall


@dataclass(slots=True)
class IndexReport:
    scan: ScanResult
    embedded: int = 0
    embed_ms: float = 0.0
    warnings: list[str] = field(default_factory=list)

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
            "embed_ms": round(self.embed_ms, 2),
            "warnings": s.warnings + self.warnings,
        }


class Vault:
    def __init__(self, root: Path, settings: Settings):
        self.root = root
        self.settings = settings
        self._store: Store | None = None
        self._embedder: Embedder | None = None
        self._embedder_loaded = False
        self.model_warning: str | None = None
        self._recall: Recall | None = None
        self.one_shot = (
            False  # a process that answers once and exits: load the model unoptimised (Embedder)
        )
        self.lean = (
            False  # the embedding worker: an index connection that maps nothing and caches little
        )

    @classmethod
    def open(
        cls,
        vault: str | os.PathLike[str] | None = None,
        *,
        writes_state: bool = False,
        create: bool = False,
        **flags: Any,
    ) -> Vault:
        """`writes_state`: the command writes under `.k0maru/` anyway, so create it first and the settings
        cache is written on this first run too. `create`: the cwd may become a new vault (`init`)."""
        root = resolve_vault(vault, create=create)
        if writes_state:
            ensure_state_dir(root)
        return cls(root, load_settings(root, **flags))

    @property
    def state_dir(self) -> Path:
        return self.root / STATE_DIR

    @property
    def store(self) -> Store:
        if self._store is None:
            self._store = Store.open(self.root, self.settings.busy_timeout_ms, lean=self.lean)
        return self._store

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None
            self._recall = None

    def __enter__(self) -> Vault:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def embedder(self) -> Embedder | None:
        if not self._embedder_loaded:
            from k0maru.search.embedding import load_embedder

            s = self.settings
            self._embedder, self.model_warning = load_embedder(
                s.model_path, s.embed_threads, s.embed, optimize=not self.one_shot
            )
            self._embedder_loaded = True
        return self._embedder

    @property
    def recall(self) -> Recall:
        if self._recall is None:
            from k0maru.search.recall import Recall

            self._recall = Recall(
                self.store, self.settings, lambda: (self.embedder, self.model_warning)
            )
        return self._recall

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

    def index(  # noqa: PLR0913 - each caller's choice of what an index run does
        self,
        full: bool = False,
        only: list[str] | None = None,
        embed: bool = True,
        scan_progress: ProgressFn | None = None,
        embed_progress: ProgressFn | None = None,
        record: bool = True,
        lexical: bool = False,
        embed_limit: int | None = None,
        snapshot_first: bool = True,
    ) -> IndexReport:
        """Incremental scan (of `only`, else everything), then embed the chunks that have no vector yet (at
        most `embed_limit`); with `lexical`, also merge the BM25 delta into its main segment when it has grown
        past `Bm25State.merge_due` (a query only ever scores the delta). A whole-vault run that a walk
        shows has nothing to do (snapshot.py) stops after the walk; `snapshot_first=False` when the caller
        has just asked (the CLI's scan), so a vault with changes is not walked one time more."""
        s = self.settings
        if only is None and not full and snapshot_first:
            files = snapshot.unchanged_files(
                self.root, s.include, s.exclude, s.max_file_bytes, embed and s.embed
            )
            if files is not None:
                return IndexReport(ScanResult(unchanged=files))
        scan = IncrementalScanner(self.store, self.settings).scan(
            full=full, only=only, progress=scan_progress, record=record
        )
        report = IndexReport(scan)
        if (
            lexical
        ):  # before embedding: a large change is searchable at full speed while vectors follow
            state = self.store.bm25_state()
            if (
                state is None or state.merge_due
            ):  # else the delta serves queries and nothing is loaded
                from k0maru.search.lexical import LexicalCache

                (self._recall.lexical if self._recall is not None else LexicalCache()).get(
                    self.store, merge=True
                )
        if embed and self.settings.embed and self.store.unembedded_chunks():
            from k0maru.search import vectors

            if not self._embedder_loaded:
                release_free_memory()  # what the scan and a BM25 build freed, before the model's ~170 MB
            embedder = self.embedder
            if embedder is None:
                report.warnings.append(self.model_warning or "no embedding model")
            else:
                t0 = time.perf_counter()
                report.embedded = vectors.embed_pending(
                    self.store,
                    embedder,
                    self.settings.embed_batch,
                    embed_progress,
                    limit=embed_limit,
                )
                report.embed_ms = (time.perf_counter() - t0) * 1000
        self._keep_snapshot(scan, lexical)
        return report

    def _keep_snapshot(self, scan: ScanResult, lexical: bool) -> None:
        """Record the walk when this index run left nothing for the next scan to do (snapshot.py)."""
        s = self.settings
        current = (
            scan.walked is not None
            and scan.corpus_version is not None
            and lexical
            and not (scan.skipped or scan.symlinks or scan.warnings)
        )  # pending vectors: checked on use
        with contextlib.suppress(
            OSError
        ):  # a read-only state folder: every scan walks in full, as before
            if not current:
                snapshot.forget(self.root)
                return
            snapshot.save(
                self.root,
                scan.walked or "",
                scan.corpus_version or 0,
                snapshot.scan_key(s.include, s.exclude, s.max_file_bytes),
            )

    def pending_changes(self) -> dict[str, int]:
        """New, changed and removed files the index has not seen yet (a walk with stat() only)."""
        return IncrementalScanner(self.store, self.settings).pending()

    def rebuild(self) -> Path | None:
        """Move a (corrupt) index aside and start a new one; returns where the old one went."""
        self.close()
        path = db_path(self.root)
        moved = None
        if path.exists():
            moved = path.with_name(f"{path.name}.corrupt-{int(time.time())}")
            shutil.move(str(path), moved)
        for suffix in ("-wal", "-shm"):
            side = path.with_name(path.name + suffix)
            if side.exists():
                shutil.move(str(side), str(moved) + suffix if moved else side.with_suffix(".old"))
        return moved

    def status(self) -> dict[str, Any]:
        store = self.store
        store.require_sound()
        counts = store.counts()
        last = store.last_scan()
        bm25 = store.bm25_state()
        if self._embedder_loaded:
            embedder_name, warning = (
                (self._embedder.name if self._embedder else None),
                self.model_warning,
            )
        else:  # status reports the model without loading it (onnxruntime and 150 MB)
            from k0maru.search.embedding import check_model

            embedder_name, warning = check_model(self.settings.model_path, self.settings.embed)
        return {
            "vault": str(self.root),
            "index": str(store.path),
            "db_size_bytes": store.db_size_bytes(),
            "schema_version": store.schema_version(),
            "sqlite": sqlite_route(),
            "model": embedder_name,
            "model_warning": warning,
            **counts,
            "chunks_pending_embedding": counts["chunks"] - counts["chunks_embedded"],
            "bm25_main_chunks": bm25.chunks if bm25 else None,  # the persisted segment ...
            "bm25_delta_chunks": bm25.backlog if bm25 else None,  # ... and what queries add to it
            "last_scan": last,
            "last_scan_age_s": round(time.time() - last["started_at"], 1) if last else None,
        }
