"""The one background indexing worker per vault, and the queue that feeds it.

Git hooks index their own few files in the foreground; what they cannot do at once (the index is busy,
the index is stale, vectors and the BM25 index are behind) goes to the worker: `start()` spawns
`k0maru worker` unless one already holds `.k0maru/worker.lock`, and a running worker loops until the
vault, the queue and the embeddings are all caught up. Paths that could not be indexed are appended to
`.k0maru/reindex-queue` (`*` means "scan everything"); any writer that indexes drains it."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from k0maru.config import STATE_DIR

QUEUE = "reindex-queue"
LOCK = "worker.lock"
ALL = "*"


def queue_paths(root: Path, paths: list[str] | None) -> None:
    """Remember paths to reindex (None: everything) for the next writer or the worker."""
    state = root / STATE_DIR
    state.mkdir(parents=True, exist_ok=True)
    lines = [ALL] if paths is None else [p for p in paths if p and "\n" not in p]
    with (state / QUEUE).open("a", encoding="utf-8") as fh:  # appends of a few lines: atomic enough
        fh.write("".join(f"{line}\n" for line in lines))


def take_queue(root: Path) -> list[str] | None:
    """The queued paths, removing the queue; [] when empty, None when a full scan was asked for."""
    path = root / STATE_DIR / QUEUE
    taken = path.with_name(f"{QUEUE}.{os.getpid()}")
    if not path.exists():
        return []
    try:
        path.replace(taken)
    except OSError:  # gone meanwhile, or a read-only state folder: nothing to take now
        return []
    try:
        lines = taken.read_text(encoding="utf-8", errors="replace").splitlines()
    finally:
        taken.unlink(missing_ok=True)
    return None if ALL in lines else sorted({line for line in lines if line})


def worker_running(root: Path) -> bool:
    if not (root / STATE_DIR / LOCK).exists():
        return False
    with held(root) as mine:
        return not mine


def start(root: Path) -> bool:
    """Spawn the worker, detached, unless one runs already; True if one was started."""
    if worker_running(root):
        return False
    log = root / STATE_DIR / "hooks.log"
    with log.open("a") as fh:
        subprocess.Popen([sys.executable, "-m", "k0maru", "worker", "--vault", str(root)], stdin=subprocess.DEVNULL,
                         stdout=fh, stderr=fh, start_new_session=True, close_fds=True)
    return True


@contextmanager
def held(root: Path) -> Iterator[bool]:
    """The worker lock for the block, if no one else holds it: yields whether this process has it."""
    lock = root / STATE_DIR / LOCK
    lock.parent.mkdir(parents=True, exist_ok=True)
    with lock.open("a") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def run(root: Path, max_rounds: int = 20) -> int:
    """The worker's loop, under the worker lock: index (queue included), embed, refresh BM25, until nothing
    is left; returns how many rounds ran (0 when another worker holds the lock)."""
    from k0maru.service.vault import Vault

    with held(root) as mine:
        if not mine:
            return 0
        rounds = 0
        with Vault.open(root) as vault:
            while rounds < max_rounds:
                rounds += 1
                report = vault.index(lexical=True)
                queue_left = (root / STATE_DIR / QUEUE).exists()
                if not report.scan.changed and not queue_left and not vault.store.unembedded_chunks():
                    break
        return rounds
