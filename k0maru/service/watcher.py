"""Freshness by events in servers: a filesystem watcher marks the paths that changed, so the next request
re-indexes exactly those instead of walking the whole vault.

`ChangeWatcher` runs `watchfiles` (inotify, FSEvents, ...) in a thread of its own. `take()` hands over the
vault-relative paths changed since the last call; None when only a whole walk can tell (a folder moved, the
watcher's event queue overflowed, too many changes at once). When no watcher can run (the package is
missing, the system's watch limit is reached), `start` returns None and the session keeps its stat walk.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

from k0maru.layout import STATE_DIR

log = logging.getLogger("k0maru.watcher")

MAX_PATHS = (
    500  # more changed paths than this at once (a checkout, a copy): one whole walk is cheaper
)
IGNORED_DIRS = frozenset({STATE_DIR, ".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv"})


class ChangeWatcher:
    def __init__(self, root: Path, stop: threading.Event):
        self.root = root
        self._stop = stop
        self._guard = threading.Lock()
        self._changed: set[str] = set()
        self._walk = False  # a change only a whole walk can account for
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="k0maru-watch", daemon=True)

    @classmethod
    def start(cls, root: Path, stop: threading.Event) -> ChangeWatcher | None:
        """A running watcher of `root`, or None when none can run here."""
        try:
            import watchfiles  # noqa: F401
        except ImportError:
            return None
        watcher = cls(root, stop)
        watcher._thread.start()  # not waited for: until its watch is in place, requests walk
        return watcher

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

    def pending(self) -> int:
        """How many changed paths wait for the next request (-1: a whole walk waits)."""
        with self._guard:
            return -1 if self._walk else len(self._changed)

    def _run(self) -> None:
        import watchfiles

        try:
            events = watchfiles.watch(
                self.root,
                watch_filter=self._wanted,
                debounce=30,
                step=10,
                stop_event=self._stop,
                rust_timeout=500,
                yield_on_timeout=True,
                raise_interrupt=False,
            )
            for batch in events:
                if not self._ready.is_set():  # the first timeout or event: the watch is in place,
                    with self._guard:  # and one more walk covers what changed just before it
                        self._walk = True
                    self._ready.set()
                self._mark(batch)
        except Exception as exc:  # noqa: BLE001 - no watcher: the session walks instead
            log.warning("file watcher stopped (%s); changes are found by walking the vault", exc)
        finally:
            self._ready.set()  # stopped: `running` is False and the session walks

    def _wanted(self, _change: Any, path: str) -> bool:
        try:
            parts = Path(path).relative_to(self.root).parts
        except ValueError:
            return False
        return not any(p in IGNORED_DIRS for p in parts)

    def _mark(self, batch: set[tuple[Any, str]]) -> None:
        with self._guard:
            for _change, path in batch:
                p = Path(path)
                if p.is_dir():  # a folder created, moved or removed with its notes inside
                    self._walk = True
                    continue
                try:
                    self._changed.add(p.relative_to(self.root).as_posix())
                except ValueError:
                    self._walk = True
