"""Freshness by events in servers: a filesystem watcher marks the paths that changed, so the next
request re-indexes exactly those instead of walking the whole vault.

`ChangeWatcher` runs `watchfiles` (inotify, FSEvents, ...) in a thread of its own. `take()` hands
over the vault-relative paths changed since the last call; None when only a whole walk can tell (a
folder moved, the watcher's event queue overflowed, too many changes at once). When no watcher can
run (the package is missing, the system's watch limit is reached), `start` returns None and the
session keeps its stat walk. Events reach the thread in small batches, so a request first calls
`sync()`: it creates a marker file and waits until the watcher has seen it, and with it every change
made before the request came.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any

from k0maru.layout import STATE_DIR

log = logging.getLogger("k0maru.watcher")

MAX_PATHS = (
    500  # more changed paths than this at once (a checkout, a copy): one whole walk is cheaper
)
IGNORED_DIRS = frozenset({STATE_DIR, ".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv"})
SYNC_DIR = "watch-sync"  # under STATE_DIR: the markers requests wait for
SYNC_WAIT_S = 1.0  # a request waits at most this long for the watcher to catch up
READY_WAIT_S = 1.0  # a server's first walk waits at most this long for the watch to be in place
READY_STEP_S = 0.01  # how often a new marker is made until the watch is in place
STEP_MS = 5  # how often the watcher looks for new events (a request's wait is one or two steps)
READY_TIMEOUT_MS = 500  # with no event, the watch is reported in place after this long


class ChangeWatcher:
    def __init__(self, root: Path):
        self.root = root
        self._stop = threading.Event()
        self._guard = threading.Lock()
        self._changed: set[str] = set()
        self._walk = False  # a change only a whole walk can account for
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="k0maru-watch", daemon=True)
        self._sync_dir = root / STATE_DIR / SYNC_DIR
        self._prefix = f"{os.getpid()}.{id(self)}."  # other processes watch the same folder
        self._numbers = itertools.count(1)
        self._synced = 0  # the last marker seen: every change made before it was marked
        self._seen = threading.Condition(self._guard)

    @classmethod
    def start(cls, root: Path) -> ChangeWatcher | None:
        """A running watcher of `root`, or None when none can run here."""
        try:
            import watchfiles  # noqa: F401
        except ImportError:
            return None
        watcher = cls(root)
        with contextlib.suppress(OSError):  # a read-only state folder: requests do not sync
            watcher._sync_dir.mkdir(parents=True, exist_ok=True)
        watcher._thread.start()  # not waited for here: `wait_ready`
        return watcher

    def stop(self, wait: float = 0) -> None:
        self._stop.set()
        if wait:
            self._thread.join(wait)

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def take(self) -> list[str] | None:
        """The changed paths since the last call (sorted), or None: walk everything."""
        if not self._ready.is_set():  # the watch is not in place yet: only a walk sees every change
            return None
        with self._guard:
            changed, walk = sorted(self._changed), self._walk
            self._changed, self._walk = set(), False
        return None if walk or len(changed) > MAX_PATHS else changed

    def mark(self, paths: list[str] | None) -> None:
        """Changes found another way (the session's safety walk): these paths, or None for a whole
        walk."""
        with self._guard:
            if paths is None:
                self._walk = True
            else:
                self._changed.update(paths)

    def sync(self, wait: float = SYNC_WAIT_S) -> bool:
        """Wait until every change made before this call is marked (what `take()` hands over): a
        marker file is created, and events arrive in order. False when the watcher cannot tell (not
        in place, stopped, the state folder not writable) or took longer than `wait`."""
        if not (self._ready.is_set() and self.running):
            return False
        return self._marker_seen(wait) is True

    def wait_ready(self, wait: float = READY_WAIT_S) -> bool:
        """Wait until the watch is in place, so that a walk starting now misses no change: markers
        are created until the watcher reports one (a marker made before the watch is in place is
        never seen). False when it is not in place within `wait`, stopped, or the state folder is
        not writable."""
        deadline = time.monotonic() + wait
        while not self._ready.is_set() and self.running:
            left = deadline - time.monotonic()
            if left <= 0 or self._marker_seen(min(left, READY_STEP_S)) is None:
                break
        return self._ready.is_set() and self.running

    def _marker_seen(self, wait: float) -> bool | None:
        """Create a marker file and wait up to `wait` for the watcher to report it; None when it
        cannot be created."""
        with self._guard:
            number = next(self._numbers)  # in the order requests came: a later marker covers it
        marker = self._sync_dir / f"{self._prefix}{number}"
        try:
            marker.touch()
        except OSError:
            return None
        try:
            with self._seen:
                return self._seen.wait_for(lambda: self._synced >= number, wait)
        finally:
            marker.unlink(missing_ok=True)

    def pending(self) -> int:
        """How many changed paths wait for the next request (-1: a whole walk waits)."""
        with self._guard:
            return -1 if self._walk else len(self._changed)

    def _run(self) -> None:
        import watchfiles

        with contextlib.suppress(OSError):
            for old in self._sync_dir.iterdir():  # markers a killed process left
                if old.stat().st_mtime < time.time() - 60:
                    old.unlink(missing_ok=True)
        try:
            events = watchfiles.watch(
                self.root,
                watch_filter=self._wanted,
                debounce=30,
                step=STEP_MS,
                stop_event=self._stop,
                rust_timeout=READY_TIMEOUT_MS,
                yield_on_timeout=True,
                raise_interrupt=False,
            )
            for batch in events:
                if not self._ready.is_set():  # the first timeout or event: the watch is in place,
                    with self._guard:  # and one more walk covers what changed just before it
                        self._walk = True
                    self._ready.set()
                self._mark(batch)
        except Exception as exc:  # no watcher: the session walks instead
            log.warning("file watcher stopped (%s); changes are found by walking the vault", exc)
        finally:
            self._ready.set()  # stopped: `running` is False and the session walks
            with self._seen:
                self._seen.notify_all()

    def _wanted(self, change: Any, path: str) -> bool:
        try:
            parts = Path(path).relative_to(self.root).parts
        except ValueError:
            return False
        if parts[:2] == (STATE_DIR, SYNC_DIR):
            return parts[-1].startswith(self._prefix) and change == 1  # this watcher's, created
        return not any(p in IGNORED_DIRS for p in parts)

    def _mark(self, batch: set[tuple[Any, str]]) -> None:
        with self._guard:
            for _change, path in batch:
                p = Path(path)
                if p.parent == self._sync_dir:
                    self._synced = max(self._synced, int(p.name.removeprefix(self._prefix)))
                    continue
                if p.is_dir():  # a folder created, moved or removed with its notes inside
                    self._walk = True
                    continue
                try:
                    self._changed.add(p.relative_to(self.root).as_posix())
                except ValueError:
                    self._walk = True
            self._seen.notify_all()
