"""Freshness by events in servers: a filesystem watcher marks the paths that changed, so the next
request re-indexes exactly those instead of walking the whole vault.

`ChangeWatcher` holds a `watchfiles` notifier (inotify, FSEvents, ...), whose own thread collects
the events; nothing of ours polls. `take()` hands over the vault-relative paths changed since the
last call; None when only a whole walk can tell (a folder moved, too many changes at once). When no
watcher can run (the package is missing, the system's watch limit is reached), `start` returns None
and the session keeps its stat walk. A request first calls `sync()`: it creates a marker file and
collects the notifier's events itself until the marker's is among them; events come in order, so
every change made before the request is then marked (a thread polling every 5 ms made each request
wait ~10 ms for it).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from k0maru.layout import STATE_DIR

if TYPE_CHECKING:
    from watchfiles._rust_notify import RustNotify

log = logging.getLogger("k0maru.watcher")

MAX_PATHS = (
    500  # more changed paths than this at once (a checkout, a copy): one whole walk is cheaper
)
IGNORED_DIRS = frozenset({STATE_DIR, ".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv"})
SYNC_DIR = "watch-sync"  # under STATE_DIR: the markers requests wait for
SYNC_WAIT_S = 1.0  # a request waits at most this long for the watcher to catch up
READY_WAIT_S = 1.0  # a server's first walk waits at most this long for the watch to be in place
SPIN_S = 0.002  # a request looks for its marker's event without a pause this long, then each 1 ms
ADDED = 1  # watchfiles' Change.added


class _Deadline:
    """The notifier's stop event: set once `at` (monotonic) has passed or the watcher stops. The
    notifier asks it after each look at its events, which it takes without a pause; after
    `SPIN_S` it pauses a millisecond here, so an event slow to come (a polling notifier) costs no
    CPU."""

    def __init__(self, at: float, stop: threading.Event):
        self.at, self.stop = at, stop
        self.pace = time.monotonic() + SPIN_S

    def is_set(self) -> bool:
        now = time.monotonic()
        if now > self.pace:
            time.sleep(0.001)
        return self.stop.is_set() or now > self.at


def _polling() -> bool:
    """Whether to poll instead of watching, as `watchfiles.watch` decides: its environment variable,
    else only on WSL (no events from Windows' drives)."""
    env = os.getenv("WATCHFILES_FORCE_POLLING")
    if env:
        return env.lower() not in {"false", "disable", "disabled"}
    return hasattr(os, "uname") and "microsoft-standard" in os.uname().release.lower()


class ChangeWatcher:
    def __init__(self, root: Path):
        self.root = root
        self._stop = threading.Event()
        self._guard = threading.Lock()  # what is marked
        self._collecting = threading.Lock()  # one caller of the notifier at a time
        self._notify: RustNotify | None = None
        self._changed: set[str] = set()
        self._walk = False  # a change only a whole walk can account for
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._open, name="k0maru-watch", daemon=True)
        self._sync_dir = root / STATE_DIR / SYNC_DIR
        self._prefix = f"{os.getpid()}.{id(self)}."  # other processes watch the same folder
        self._numbers = itertools.count(1)
        self._synced = 0  # the last marker seen: every change made before it was marked

    @classmethod
    def start(cls, root: Path) -> ChangeWatcher | None:
        """A watcher of `root`, or None when none can run here."""
        try:
            import watchfiles  # noqa: F401
        except ImportError:
            return None
        watcher = cls(root)
        with contextlib.suppress(OSError):  # a read-only state folder: requests do not sync
            watcher._sync_dir.mkdir(parents=True, exist_ok=True)
        watcher._thread.start()  # the watch is put in place there, not waited for: `wait_ready`
        return watcher

    def stop(self, wait: float = 0) -> None:
        self._stop.set()
        if wait:
            self._thread.join(wait)
        with self._collecting:
            if self._notify is not None:
                self._notify.close()
                self._notify = None

    @property
    def running(self) -> bool:
        return not self._stop.is_set()

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
        """Mark every change made before this call (what `take()` hands over): a marker file is
        created and the notifier's events are collected until its event comes (events come in
        order). False when the watcher cannot tell (not in place, stopped, the state folder not
        writable) or took longer than `wait`."""
        if not (self._ready.is_set() and self.running):
            return False
        with self._guard:
            number = next(self._numbers)  # in the order requests came: a later marker covers it
        marker = self._sync_dir / f"{self._prefix}{number}"
        try:
            marker.touch()
        except OSError:
            return False
        deadline = _Deadline(time.monotonic() + wait, self._stop)
        try:
            while self._synced < number:
                with self._collecting:  # another request may have collected it meanwhile
                    if self._synced < number and not self._collect(deadline):
                        return False
            return True
        finally:
            marker.unlink(missing_ok=True)

    def wait_ready(self, wait: float = READY_WAIT_S) -> bool:
        """Wait until the watch is in place, so that a walk starting now misses no change. False
        when it is not in place within `wait`, or the watcher stopped."""
        return self._ready.wait(wait) and self.running

    def pending(self) -> int:
        """How many changed paths wait for the next request (-1: a whole walk waits)."""
        with self._guard:
            return -1 if self._walk else len(self._changed)

    def _open(self) -> None:
        """Put the watch in place (the notifier walks the folders); one more walk then covers what
        changed before it was."""
        from watchfiles._rust_notify import RustNotify

        with contextlib.suppress(OSError):
            for old in self._sync_dir.iterdir():  # markers a killed process left
                if old.stat().st_mtime < time.time() - 60:
                    old.unlink(missing_ok=True)
        try:
            notify = RustNotify([str(self.root)], False, _polling(), 300, True, False)
        except Exception as exc:  # no watcher: the session walks instead
            log.warning("no file watcher (%s); changes are found by walking the vault", exc)
            self._stop.set()
        else:
            with self._collecting:
                if self._stop.is_set():
                    notify.close()
                else:
                    self._notify = notify
            self.mark(None)
        finally:
            self._ready.set()

    def _collect(self, deadline: _Deadline) -> bool:
        """Mark the events the notifier holds, waiting for one if it holds none (hold
        `_collecting`). False when the deadline passed or the watcher stopped."""
        notify = self._notify
        if notify is None:
            return False
        try:  # no pause, and no timeout (one drops what it holds): it returns once two looks agree
            got = notify.watch(0, 0, 0, deadline)
        except Exception as exc:  # its thread failed: the session walks and starts another
            log.warning("file watcher stopped (%s); changes are found by walking the vault", exc)
            self._stop.set()
            return False
        if isinstance(got, str):  # "stop" (the deadline) or "signal": it dropped what it held
            self.mark(None)
            if got == "signal":
                raise KeyboardInterrupt
            return False
        self._mark(got)
        return True

    def _mark(self, batch: set[tuple[int, str]]) -> None:
        with self._guard:
            for change, path in batch:
                p = Path(path)
                if p.parent == self._sync_dir:
                    if change == ADDED and p.name.startswith(self._prefix):
                        self._synced = max(self._synced, int(p.name.removeprefix(self._prefix)))
                    continue
                try:
                    parts = p.relative_to(self.root).parts
                except ValueError:
                    continue
                if any(part in IGNORED_DIRS for part in parts):
                    continue
                if p.is_dir():  # a folder created, moved or removed with its notes inside
                    self._walk = True
                else:
                    self._changed.add("/".join(parts))
