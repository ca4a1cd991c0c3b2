"""A progress line that appears only for work lasting over a second, on a terminal, outside --json:
one line redrawn in place (carriage return) and erased when the work ends."""

from __future__ import annotations

import shutil
import sys
import time

BAR = 30  # the bar's width in characters
REDRAW = 0.1  # the most often the line is drawn, in seconds (the last count is always drawn)
ERASE = "\r\x1b[K"  # back to the line's start, then clear to its end


def line(label: str, done: int, total: int, elapsed: float, columns: int) -> str:
    """`label [=====>     ] done/total 0:01:23`: the time left at the rate so far; the bar narrows
    (then goes) so that the line never wraps on a narrow terminal."""
    if 0 < done < total and elapsed > 0:
        left = round(elapsed * (total - done) / done)
        eta = f"{left // 3600}:{left // 60 % 60:02d}:{left % 60:02d}"
    else:
        eta = "0:00:00" if done >= total > 0 else "-:--:--"
    tail = f" {done}/{total} {eta}"
    width = min(BAR, columns - 1 - len(label) - len(tail) - 3)  # 3: " [" and "]"
    if width < 5:
        return f"{label}{tail}"[: max(columns - 1, 0)]
    share = min(max(done / total, 0.0), 1.0) if total > 0 else 0.0
    filled = int(share * width)
    bar = "=" * filled + (">" if filled < width else "") + " " * (width - filled - 1)
    return f"{label} [{bar}]{tail}"


class LazyProgress:
    """Callable (done, total) -> None; draws the line on stdout once `delay` seconds have passed."""

    def __init__(self, label: str, enabled: bool, delay: float = 1.0):
        self.label = label
        self.enabled = enabled and sys.stdout.isatty()
        self.delay = delay
        self.started = time.monotonic()
        self.drawn = 0.0  # when the line was last drawn; 0: it is not on the screen

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.started < self.delay or (now - self.drawn < REDRAW and done < total):
            return
        columns = shutil.get_terminal_size().columns
        self._write(ERASE + line(self.label, done, total, now - self.started, columns), now)

    def close(self) -> None:
        if self.drawn:
            self._write(ERASE, 0.0)

    def _write(self, text: str, drawn: float) -> None:
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except (OSError, ValueError):  # a closed or broken terminal: no more lines
            self.enabled = False
        self.drawn = drawn

    def __enter__(self) -> LazyProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
