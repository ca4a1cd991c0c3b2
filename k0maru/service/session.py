"""One open vault shared by the callers of a process, with one lock and a fresh index.

`with session.session():` holds the lock (SQLite connections are not shared across threads at
once) and first brings the index up to date: a lexical rescan, at most every `rescan_interval`
seconds. In long-running processes (MCP server, console) chunks still without vectors are embedded
by a background thread on its own connection, so a large un-embedded vault never stalls a request;
one-shot commands embed in the foreground with progress bars instead."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from k0maru.errors import IndexCorruptError, IndexLockedError, IndexReadOnlyError, K0maruError
from k0maru.index.scanner import ProgressFn
from k0maru.index.store import db_path
from k0maru.index.vault import Vault

log = logging.getLogger("k0maru.session")


class VaultSession:
    def __init__(
        self,
        vault: Vault,
        *,
        rescan_interval: float = 2.0,
        embed: str = "thread",
        rescan: bool = True,
        scan_progress: ProgressFn | None = None,
        embed_progress: ProgressFn | None = None,
    ):
        self.vault = vault
        self.lock = threading.RLock()
        self.rescan_interval = rescan_interval
        self.embed = (
            embed  # new chunks: "thread" (servers), "worker" (one-shot queries), "foreground"
        )
        self.rescan = rescan
        self.scan_progress = scan_progress
        self.embed_progress = embed_progress
        self.warnings: list[str] = []
        self._last_scan: float | None = None
        self._embedder_thread: threading.Thread | None = None
        self._closing = threading.Event()
        self._worker_wanted = False

    @contextmanager
    def session(self, fresh: bool = True) -> Iterator[Vault]:
        """The vault under the lock, rescanned first unless `fresh` is False (pure reads of records)."""
        from k0maru.index import db

        with self.lock:
            try:
                if fresh:
                    self.fresh()
                yield self.vault
            except (
                db.DatabaseError
            ) as exc:  # e.g. a corrupt page met mid-query: one line, not a traceback
                raise self._explain(exc) from None

    def _explain(self, exc: Exception) -> K0maruError:
        """An SQLite failure as one actionable line; an odd one (an extension's read error) is checked
        against the file's integrity, so corruption is named as such."""
        from k0maru.index import db

        error = db.translate_error(exc, db_path(self.vault.root))
        if type(error) is K0maruError:
            try:
                self.vault.store.require_sound()
            except IndexCorruptError as corrupt:
                return corrupt
            except db.DatabaseError as again:
                return db.translate_error(again, db_path(self.vault.root))
        return error

    def fresh(self) -> None:
        """Incremental rescan (call it holding `lock`); throttled to one per `rescan_interval`."""
        if not self.rescan:
            return
        if (
            self._last_scan is not None
            and time.monotonic() - self._last_scan < self.rescan_interval
        ):
            return
        try:
            report = self.vault.index(
                record=False,
                embed=self.embed == "foreground",
                lexical=True,
                scan_progress=self.scan_progress,
                embed_progress=self.embed_progress,
            )
        except (
            IndexReadOnlyError,
            IndexLockedError,
        ) as exc:  # answer from the index as it is, and say so
            self._last_scan = time.monotonic()
            self.warnings = [f"index not refreshed: {exc}"]
            return
        self._last_scan = time.monotonic()
        self.warnings = report.as_dict()["warnings"]
        pending = self.vault.settings.embed and self.vault.store.unembedded_chunks()
        if self.embed == "thread":
            for w in self.warnings:
                log.warning("%s", w)
            if pending:
                self._embed_in_background()
        elif self.embed == "worker" and pending and not self.vault.store.readonly:
            self._worker_wanted = (
                True  # asked for on close: a query never waits for embeddings, nor shares
            )
            # the CPU with the worker's start-up while it answers

    def _embed_in_background(self) -> None:
        if self._embedder_thread is not None and self._embedder_thread.is_alive():
            return
        embedder = self.vault.embedder
        if embedder is None:
            return
        self._embedder_thread = threading.Thread(
            target=self._embed_pending, args=(embedder,), name="k0maru-embed"
        )
        self._embedder_thread.start()

    def _embed_pending(self, embedder: Any) -> None:
        """On its own connection; batches commit as they finish, so recall sees vectors appear while the
        rest are computed."""
        from k0maru.index.store import Store
        from k0maru.search import vectors
        from k0maru.service import worker

        try:
            with worker.held(self.vault.root) as mine:  # one embedder per vault, across processes
                if not mine:
                    return
                with Store.open(self.vault.root, self.vault.settings.busy_timeout_ms) as store:
                    while not self._closing.is_set() and store.unembedded_chunks():
                        if not vectors.embed_pending(
                            store, embedder, self.vault.settings.embed_batch, limit=256
                        ):
                            break
        except Exception as exc:  # noqa: BLE001 - the next rescan retries
            log.warning("background embedding stopped: %s", exc)

    def close(self) -> None:
        """Stop background embedding, wait for it, then close the vault under the lock (tearing down
        under a thread still inside onnxruntime or SQLite crashes the interpreter)."""
        self._closing.set()
        if self._embedder_thread is not None:
            self._embedder_thread.join()
        with self.lock:
            self.vault.close()
        if self._worker_wanted:
            from k0maru.service import worker

            worker.request(self.vault.root)
