"""One open vault shared by the callers of a process: readers side by side, one writer, a fresh
index.

`with session.session():` reads through the calling thread's own connection (WAL readers never wait
for a writer) after bringing the index up to date under the one write lock: in servers, of the paths
the file watcher marked, once it has seen every change made before the request
(`ChangeWatcher.sync`), with a stat walk in a background thread for what it misses; elsewhere a
lexical rescan at most every `rescan_interval` seconds (a request that finds another thread writing
reads the index as it is, after waiting a little when a change it needs is being indexed).
`session(write=True)` holds that lock for the block (flush, distill, scan). Each request first
checks that the index file is still the one its connection holds (one stat) and reopens it if not.
In long-running processes (MCP server, console) chunks still without vectors are embedded by a
background thread on its own connection; a BM25 merge that is due is left to the worker process
(servers ask it, one- shot commands ask it as they close), never done on a query's path."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from k0maru.errors import (
    IndexCorruptError,
    IndexLockedError,
    IndexReadOnlyError,
    IndexReplacedError,
    K0maruError,
)
from k0maru.index.scan_result import ProgressFn
from k0maru.index.store import db_path
from k0maru.wiring.vault import IndexReport, Vault

TYPE_CHECKING = False  # as typing's (mypy reads it so): servers alone import these
if TYPE_CHECKING:
    import logging

    from k0maru.service.watcher import ChangeWatcher


def log() -> logging.Logger:
    """The session's logger (servers log; a one-shot search imports no logging)."""
    import logging

    return logging.getLogger("k0maru.session")


READ_INDEX_LIMIT = (
    50  # a request indexes at most this many new or changed notes; the worker the rest
)
READ_WAIT_S = 0.25  # a read waits at most this long for another thread indexing a change it needs
SAFETY_WALK_S = (
    60.0  # servers: a stat walk in the background this often finds what the watcher missed
)
QUIET_S = 0.2  # work that can wait (a server's first sniff) starts after this long with no request
QUIET_WAIT_S = 10.0  # ... or after this long at most
WATCHER_STARTS = 3  # a watcher that keeps dying is not started again: the session walks


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
        self._logged: set[str] = set()  # servers log a warning once, not at every rescan
        self._last_scan: float | None = None
        self._embedder_thread: threading.Thread | None = None
        self._closing = threading.Event()
        self._worker_wanted = False
        self._requests = 0  # in flight: close() waits for them
        self._last_request = time.monotonic()  # when the last one ended
        self._watcher: ChangeWatcher | None = None  # servers: what changed since the last request
        self._watcher_starts = 0
        self._safety_thread: threading.Thread | None = None  # servers: the periodic stat walk
        self._refreshing = False  # a thread indexes what the watcher marked
        self.safety_walk_s = SAFETY_WALK_S
        self._lag = threading.local()  # why this thread's answer may miss a recent change
        self._idle = threading.Condition()
        self._deferred = 0  # new or changed notes a request left to the worker (a backlog)

    @contextmanager
    def session(self, fresh: bool = True, write: bool = False) -> Iterator[Vault]:
        """The vault through this thread's own connection, rescanned first unless `fresh` is False
        (pure reads of records); `write` holds the write lock for the block."""
        from k0maru.index import db

        self._lag.text = self._lag.reopened = None
        with self._in_flight():
            try:
                self._follow_replaced()
                if fresh and self._watcher is not None and self._last_scan is not None:
                    self._watcher.sync()  # every change made before this request is marked
                if write:
                    with self.lock:
                        if fresh:
                            self.fresh()
                        yield self.vault
                else:
                    if fresh:
                        self._refresh_for_read()
                    yield self.vault
            except (
                db.DatabaseError,
                UnicodeDecodeError,
            ) as exc:  # e.g. a corrupt page met mid-query: one line, not a traceback
                raise self._explain(exc) from None

    def _follow_replaced(self) -> None:
        """Reopen the index when a rebuild replaced its file (two stat()s: the file and its log);
        the answer says so."""
        reopened = self.vault.reopen_if_replaced()
        if reopened:
            log().warning("%s: %s", db_path(self.vault.root), reopened)
            self._lag.reopened = reopened
            self._last_scan = None

    def _refresh_for_read(self) -> None:
        """A read's rescan, where it can take the write lock (`_lock_for_read`); the answer says
        what it may miss: changes another request is indexing, or a backlog the worker has."""
        watcher = self._watcher
        if self._lock_for_read():
            try:
                self.fresh()
            finally:
                self.lock.release()
        elif watcher is not None and (watcher.pending() or self._refreshing):
            self._lag.text = (
                "another request is indexing; files changed just now may not be in this answer"
            )
        if self._backlog():
            self._lag.text = (
                f"{self._deferred} new or changed note(s) are not indexed yet; the "
                "indexing worker is adding them, so this answer may miss them"
            )

    def _backlog(self) -> int:
        """The notes a request left to the worker, while the worker has not finished them."""
        if self._deferred and not self._worker_wanted:
            from k0maru.service import worker

            if not worker.busy(self.vault.root):
                self._deferred = 0
        return self._deferred

    def _defer(self, deferred: int) -> None:
        """More new or changed notes than a request indexes: the worker indexes the rest (servers
        ask it now, one-shot commands as they close, so it does not share the CPU with the
        answer)."""
        self._deferred = deferred
        if not deferred or self.vault.store.readonly:
            return
        if self.embed == "thread":
            from k0maru.service import worker

            worker.request(self.vault.root)
        else:
            self._worker_wanted = True

    def _lock_for_read(self) -> bool:
        """The write lock for a read's rescan. With another thread writing (a flush), a read goes on
        with the index as it is, unless it was never brought up to date in this process (an answer
        before the first walk would be empty), or another request is indexing the changes the
        watcher marked (a few files): then it waits for that, a little."""
        if self._last_scan is None:
            return self.lock.acquire()
        if self._refreshing:
            return self.lock.acquire(timeout=READ_WAIT_S)
        return self.lock.acquire(blocking=False)

    @contextmanager
    def _in_flight(self) -> Iterator[None]:
        with self._idle:
            self._requests += 1
        try:
            yield
        finally:
            with self._idle:
                self._requests -= 1
                self._last_request = time.monotonic()
                self._idle.notify_all()

    def _explain(self, exc: Exception) -> K0maruError:
        """An SQLite failure as one actionable line; an odd one (an extension's read error) is
        checked against the file's integrity, so corruption is named as such."""
        from k0maru.index import db

        error = db.translate_error(exc, db_path(self.vault.root))
        if type(error) is K0maruError:
            try:
                self.vault.store.require_readable()
            except IndexCorruptError as corrupt:
                return corrupt
            except db.DatabaseError as again:
                return db.translate_error(again, db_path(self.vault.root))
        return error

    def _not_refreshed(self, exc: Exception) -> None:
        """A rescan that could not write: the answer comes from the index as it is, with one line
        saying why and what to run; any other failure is raised as its one line."""
        from k0maru.index import db

        error = (
            exc
            if isinstance(exc, K0maruError)
            else db.translate_error(exc, db_path(self.vault.root))
        )
        if not isinstance(error, IndexReadOnlyError | IndexLockedError | IndexCorruptError):
            raise error from None
        self._last_scan = time.monotonic()
        self.warnings = [f"index not refreshed: {error}"]
        self._lag.text = f"the index is behind the files: {error}"

    def _rescan_due(self) -> tuple[bool, list[str] | None]:
        """Whether a rescan is due now, and the paths it covers (None: the whole stat walk)."""
        if self._watcher is not None and not self._watcher.running and not self._closing.is_set():
            log().warning("the file watcher stopped; walking the vault for what it may have missed")
            self._watcher = None  # started again by fresh(), a few times at most
            return True, None
        if self._last_scan is not None and self._watcher is not None:
            only = self._watcher.take()
            return only != [], only
        recent = (
            self._last_scan is not None
            and time.monotonic() - self._last_scan < self.rescan_interval
        )
        return not recent, None

    def fresh(self) -> None:
        """Incremental rescan (call it holding `lock`). In a server (`rescan_interval` > 0) a file
        watcher marks what changed and only those paths are indexed again (nothing at all when
        nothing changed); without one, a whole stat walk at most every `rescan_interval` seconds."""
        from k0maru.index import db

        if not self.rescan:
            return
        due, only = self._rescan_due()
        if not due:
            return
        self._start_watcher()
        watcher = self._watcher
        if only is None and watcher is not None and watcher.wait_ready():
            watcher.take()  # a whole walk that starts now, the watch in place, covers what it marked
        try:
            report = self._index(only)
        except (
            IndexReadOnlyError,
            IndexLockedError,
            IndexCorruptError,
            db.DatabaseError,
        ) as exc:  # answer from what is readable, and say what to run (a full disk, a damaged page)
            self._not_refreshed(exc)
            return
        if self._last_scan is None and self._watcher is not None:  # a server's first walk is done:
            # its first flush need not wait for the sniff, nor its first answers share the CPU with
            # it
            self.vault.sniff_conventions_later(after=self._wait_quiet)
        self._last_scan = time.monotonic()
        self._defer(report.scan.deferred)
        self.warnings = report.as_dict()["warnings"]
        self._follow_up(report)

    def _follow_up(self, report: IndexReport) -> None:
        """After an index run: a server logs its new warnings once, embeds in a thread and asks the
        worker for a due merge; a one-shot process asks the worker for both when it closes."""
        pending = self.vault.settings.embed and self.vault.store.has_unembedded_chunks()
        if self.embed == "thread":
            for w in self.warnings:
                if w not in self._logged:
                    self._logged.add(w)
                    log().warning("%s", w)
            if pending:
                self._embed_in_background()
            if report.merge_due and not self.vault.store.readonly:
                from k0maru.service import worker

                # in another process: a merge in a thread of this one would hold the interpreter
                # lock against the very queries it keeps fast
                worker.request(self.vault.root)
        elif (
            self.embed == "worker"
            and (pending or report.merge_due)
            and not self.vault.store.readonly
        ):
            # asked for on close: a query never waits for embeddings, nor shares the CPU with the
            # worker's start-up while it answers
            self._worker_wanted = True

    def watch(self) -> None:
        """Servers: start the file watcher now, so that its watch is in place by the first
        request."""
        with self.lock:
            self._start_watcher()

    def _start_watcher(self) -> None:
        """Servers: the file watcher (before the walk that follows), and the background safety
        walk."""
        if (
            self._watcher is not None
            or self.rescan_interval <= 0
            or self.embed != "thread"
            or self._watcher_starts >= WATCHER_STARTS
        ):
            return
        from k0maru.service.watcher import ChangeWatcher

        self._watcher = ChangeWatcher.start(self.vault.root)
        self._watcher_starts += 1
        if self._safety_thread is None and self._watcher is not None:
            self._safety_thread = threading.Thread(target=self._safety_walks, name="k0maru-walk")
            self._safety_thread.start()

    def _wait_quiet(self, quiet: float = QUIET_S, timeout: float = QUIET_WAIT_S) -> bool:
        """Until no request has been in flight for `quiet` seconds (at most `timeout`): an answer is
        still on its way to the client for a moment after its request has left the session. False
        when the session closes meanwhile: the work is not worth starting."""
        deadline = time.monotonic() + timeout
        with self._idle:
            while (now := time.monotonic()) < deadline and not self._closing.is_set():
                if self._requests == 0 and now - self._last_request >= quiet:
                    return True
                self._idle.wait(min(quiet, deadline - now))
        return not self._closing.is_set()

    def _index(self, only: list[str] | None) -> IndexReport:
        """A query's index run: lexical, no merge (the worker merges); a rebuild that moved the file
        aside meanwhile is followed by a whole walk into the new one."""

        def run(only: list[str] | None) -> IndexReport:
            return self.vault.index(
                only=only,
                record=False,
                embed=self.embed == "foreground",
                lexical=True,
                merge=False,
                limit=READ_INDEX_LIMIT,
                scan_progress=self.scan_progress,
                embed_progress=self.embed_progress,
            )

        started = time.time()
        self._refreshing = True
        try:
            try:
                report = run(only)
            except IndexReplacedError:
                self.vault.reopen_if_replaced()
                report = run(None)
        finally:
            self._refreshing = False
        self._record(started, report)
        return report

    def _record(self, started: float, report: IndexReport) -> None:
        """A query's run that changed the index is recorded as a scan (what `status` calls the last
        scan); one that found nothing is not, so a query on a current index writes nothing. Left out
        when another writer holds the lock: the notes are indexed, only the record is missing."""
        scan, store = report.scan, self.vault.store
        if not scan.changed or store.readonly:
            return
        with store.transaction_if_free() as free:
            if free:
                store.record_scan(started, scan.elapsed_ms, scan.counts())

    def _safety_walks(self) -> None:
        """Every SAFETY_WALK_S, on its own connection and without writing: a stat walk of the vault
        against the index; what differs (an event the watcher lost, an overflow of its queue) is
        marked for the next request to index."""
        while not self._closing.wait(self.safety_walk_s):
            watcher = self._watcher
            if watcher is None or self._last_scan is None:
                continue
            watcher.sync()  # what the notifier holds is marked, not reported as missed
            try:
                self.vault.reopen_if_replaced()
                missed = self.vault.changed_paths()
            except Exception as exc:  # the next walk tries again
                log().warning("background walk failed: %s", exc)
                continue
            if missed:
                log().info("the walk found %d change(s) the watcher did not report", len(missed))
                watcher.mark(missed)

    def behind(self) -> list[str]:
        """Why the calling thread's last answer may miss a recent change (empty when it cannot)."""
        lines = [getattr(self._lag, "reopened", None), getattr(self._lag, "text", None)]
        return [line for line in lines if line]

    def embed_later(self) -> None:
        """Chunks without vectors (a note just written and indexed lexically, a server's start):
        they follow in the background thread (servers) or the worker (one-shot commands), never
        before an answer."""
        if not (self.vault.settings.embed and self.vault.store.has_unembedded_chunks()):
            return
        if self.embed == "thread":
            self._embed_in_background()
        elif self.embed == "worker" and not self.vault.store.readonly:
            self._worker_wanted = True

    def _embed_in_background(self) -> None:
        if self._embedder_thread is not None and self._embedder_thread.is_alive():
            return
        self._embedder_thread = threading.Thread(target=self._embed_pending, name="k0maru-embed")
        self._embedder_thread.start()

    def _embed_pending(self) -> None:
        """On its own connection; batches commit as they finish, so recall sees vectors appear while
        the rest are computed."""
        from k0maru.index.store import Store
        from k0maru.search import vectors
        from k0maru.service import worker

        root = self.vault.root
        try:
            with worker.held(root) as mine:  # one embedder per vault, across processes
                if not mine:
                    return
                # the model loads here, off the request that asked for vectors
                embedder = self.vault.embedder if self.vault.settings.embed else None
                with Store.open(self.vault.root, self.vault.settings.busy_timeout_ms) as store:
                    # closing, the file moved away (the next request reopens), or a request for the
                    # worker (a BM25 merge, a git event): it takes the lock and the embedding over
                    def stop() -> bool:
                        return self._closing.is_set() or store.replaced() or worker.wanted(root)

                    while (
                        embedder is not None
                        and not stop()
                        and store.has_unembedded_chunks()
                        and vectors.embed_pending(
                            store, embedder, self.vault.settings.embed_batch, limit=256, stop=stop
                        )
                    ):
                        pass
        except IndexReplacedError:
            pass  # a rebuild: the next request reopens and embeds into the new file
        except Exception as exc:  # the next rescan retries
            log().warning("background embedding stopped: %s", exc)
        self._hand_on_request()

    def _hand_on_request(self) -> None:
        """A worker request left waiting while this process held the worker lock (its embedder, or a
        request made just before it exits): start the worker now that the lock is free."""
        from k0maru.service import worker

        root = self.vault.root
        if worker.wanted(root) and not worker.running(root):
            try:
                worker.request(root)
            except OSError as exc:  # a read-only state folder: the next git event asks again
                log().warning("could not start the worker: %s", exc)

    def close(self) -> None:
        """Stop background embedding, wait for it, then close the vault under the lock (tearing down
        under a thread still inside onnxruntime or SQLite crashes the interpreter)."""
        self._closing.set()
        with self._idle:
            self._idle.notify_all()  # work waiting for a quiet moment gives up
        if self._watcher is not None:
            self._watcher.stop()
        for thread in (self._embedder_thread, self._safety_thread):
            if thread is not None:
                thread.join()
        with self._idle:
            self._idle.wait_for(lambda: self._requests == 0, timeout=60)
        with self.lock:
            self.vault.close()
        if self._worker_wanted:
            from k0maru.service import worker

            worker.request(self.vault.root)
        else:
            self._hand_on_request()  # the last one out: a request is never left without a worker
