"""A progress bar that appears only for work lasting over a second, on a terminal, outside
--json."""

from __future__ import annotations

import sys
import time
from typing import Any


class LazyProgress:
    """Callable (done, total) -> None; draws a rich bar once `delay` seconds have passed."""

    def __init__(self, label: str, enabled: bool, delay: float = 1.0):
        self.label = label
        self.enabled = enabled and sys.stdout.isatty()
        self.delay = delay
        self.started = time.monotonic()
        self._progress: Any = None
        self._task: Any = None

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self._progress is None:
            if time.monotonic() - self.started < self.delay:
                return
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeRemainingColumn,
            )

            self._progress = Progress(
                TextColumn(self.label),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                transient=True,
            )
            self._progress.start()
            self._task = self._progress.add_task(self.label, total=total)
        self._progress.update(self._task, completed=done, total=total)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None

    def __enter__(self) -> LazyProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
