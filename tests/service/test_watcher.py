"""Freshness by events: a server session indexes exactly the files a watcher saw change, so an edit is
found by the next request, without a walk of the vault on every call (real inotify, real SQLite)."""

from __future__ import annotations

import time
from pathlib import Path

from k0maru.index.vault import Vault
from k0maru.service.operations import Service
from k0maru.service.session import VaultSession
from tests.helpers import write


def test_an_edit_is_found_by_the_next_request(vault: Path) -> None:
    for i in range(30):
        write(vault, f"notes/n{i}.md", f"# Note {i}\n\nLease renewal, note {i}.\n")
    # a server's session: at most one walk per 2 s without a watcher
    with Service(VaultSession(Vault.open(vault, embed=False))) as svc:
        assert svc.recall("lease renewal", mode="bm25").hits
        assert svc.live._watcher is not None and svc.live._watcher.running
        waits = []
        for i in range(5):
            write(vault, f"notes/new{i}.md", f"# New {i}\n\nmarkerfresh{i} just written.\n")
            t0 = time.perf_counter()
            while not svc.recall(f"markerfresh{i}", mode="bm25").hits:
                assert time.perf_counter() - t0 < 1.0, "the edit was not indexed within 1 s"
                time.sleep(0.01)
            waits.append(time.perf_counter() - t0)
        (vault / "notes" / "new0.md").unlink()
        time.sleep(0.2)
        assert not svc.recall("markerfresh0", mode="bm25").hits  # a deletion, too
        write(vault, "moved/deep/one.md", "# Deep\n\nmarkerdeep in a new folder.\n")
        time.sleep(0.2)
        assert [h.path for h in svc.recall("markerdeep", mode="bm25").hits] == ["moved/deep/one.md"]
    print(f"edit -> hit: {', '.join(f'{w * 1000:.0f} ms' for w in waits)}")
    assert max(waits) < 1.0


def test_the_first_request_does_not_wait_for_the_watch(vault: Path) -> None:
    """Starting the watcher returns at once (an agent's first call was held for the watcher's first
    500 ms timeout); until its watch is in place, and once just after, a request walks the vault."""
    import threading

    from k0maru.service.watcher import ChangeWatcher

    stop = threading.Event()
    t0 = time.perf_counter()
    watcher = ChangeWatcher.start(vault, stop)
    try:
        assert watcher is not None and time.perf_counter() - t0 < 0.25
        assert watcher.take() is None  # not in place yet: walk
        deadline = time.monotonic() + 5
        while watcher.take() is None and time.monotonic() < deadline:
            time.sleep(0.05)  # in place: one more walk, then changed paths only
        assert watcher.take() == []
    finally:
        stop.set()
        watcher and watcher._thread.join(5)
