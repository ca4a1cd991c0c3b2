"""Work is never dropped: a worker that meets the index locked by another writer keeps the request
and tries again with backoff until the change is indexed (real SQLite, a real second connection)."""

from __future__ import annotations

import fcntl
import os
import threading
import time
from pathlib import Path

from k0maru.index import db
from k0maru.index.store import Store, db_path
from k0maru.layout import STATE_DIR
from k0maru.service import worker
from tests.helpers import scan, write


def test_a_locked_catch_up_keeps_its_request_and_retries(vault: Path) -> None:
    write(vault, "notes/a.md", "# A\n\nLease renewal.\n")
    scan(vault)
    write(vault, "notes/b.md", "# B\n\nmarkerbravo, written while another process writes.\n")
    holder = db.connect(db_path(vault))
    holder.execute("BEGIN IMMEDIATE")  # another writer holds the lock
    worker.request(vault, spawn=False)
    result: list[object] = []
    thread = threading.Thread(
        target=lambda: result.append(worker.run(vault, embed=False, busy_timeout_ms=100))
    )
    thread.start()
    try:
        time.sleep(1.5)
        assert thread.is_alive(), f"the worker gave up: {result}"
        assert (vault / STATE_DIR / worker.WANTED).exists()  # the request is kept while it waits
    finally:
        holder.execute("COMMIT")
        holder.close()
    thread.join(timeout=60)
    assert not thread.is_alive()
    assert not (vault / STATE_DIR / worker.WANTED).exists()
    with Store.open(vault) as store:
        assert store.document_by_path("notes/b.md") is not None
    assert "retrying" in (vault / STATE_DIR / worker.LOG).read_text()


def _probe_lock(vault: Path) -> int:
    """The worker lock held shared, as a `running()` probe holds it for an instant."""
    (vault / STATE_DIR).mkdir(exist_ok=True)
    fd = os.open(vault / STATE_DIR / worker.LOCK, os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    return fd


def test_a_probe_never_turns_a_worker_away(vault: Path) -> None:
    """The CI flake of stop 59: `running()` met the embedder taking the lock, which gave up."""
    fd = _probe_lock(vault)
    release = threading.Timer(0.02, os.close, (fd,))
    release.start()
    with worker.held(vault) as mine:
        assert mine
        assert worker.running(vault)
    release.join()


def test_a_holder_still_turns_a_second_worker_away(vault: Path) -> None:
    with worker.held(vault) as first:
        t0 = time.monotonic()
        with worker.held(vault) as second:
            assert first and not second
        assert time.monotonic() - t0 < 0.05  # told at once, not after the probe's retries
    fd = _probe_lock(vault)  # a lock held shared past the retries is not taken either
    try:
        with worker.held(vault) as mine:
            assert not mine
    finally:
        os.close(fd)
