"""Freshness by events: a server session indexes exactly the files a watcher saw change, so an edit
is found by the next request, without a walk of the vault on every call (real inotify, real
SQLite)."""

from __future__ import annotations

import time
from pathlib import Path

from k0maru.service.operations import Service
from k0maru.service.session import VaultSession
from k0maru.wiring.vault import Vault
from tests.helpers import until, write


def test_an_edit_is_found_by_the_next_request(vault: Path) -> None:
    for i in range(30):
        write(vault, f"notes/n{i}.md", f"# Note {i}\n\nLease renewal, note {i}.\n")
    # a server's session: at most one walk per 2 s without a watcher
    with Service(VaultSession(Vault.open(vault, embed=False))) as svc:
        assert svc.recall("lease renewal", mode="bm25").hits
        assert svc._session._watcher is not None and svc._session._watcher.running
        waits = []
        for i in range(5):
            write(vault, f"notes/new{i}.md", f"# New {i}\n\nmarkerfresh{i} just written.\n")
            t0 = time.perf_counter()

            def fresh(i: int = i) -> object:
                return svc.recall(f"markerfresh{i}", mode="bm25").hits

            assert until(fresh), i
            waits.append(time.perf_counter() - t0)
        (vault / "notes" / "new0.md").unlink()
        assert until(lambda: not svc.recall("markerfresh0", mode="bm25").hits)  # a deletion, too
        write(vault, "moved/deep/one.md", "# Deep\n\nmarkerdeep in a new folder.\n")
        assert until(lambda: svc.recall("markerdeep", mode="bm25").hits)
        assert [h.path for h in svc.recall("markerdeep", mode="bm25").hits] == ["moved/deep/one.md"]
    print(f"edit -> hit: {', '.join(f'{w * 1000:.0f} ms' for w in waits)}")


def test_the_first_request_does_not_wait_for_the_watch(vault: Path) -> None:
    """Starting the watcher does not wait for the watch to be in place (an agent's first call was
    held for it); until it is, and once just after, a request walks the vault."""
    from k0maru.service import watcher as watching

    watcher = watching.ChangeWatcher.start(vault)
    try:
        assert watcher is not None and watcher.take() is None  # not in place yet, or just: walk
        assert watcher.wait_ready(wait=60)
        assert watcher.take() in (None, [])  # one more walk, for what changed just before ...
        assert watcher.take() == []  # ... then the changed paths only
    finally:
        if watcher:
            watcher.stop(wait=5)


def test_a_server_walks_once_at_start_with_the_watch_in_place(vault: Path) -> None:
    """A server's first request waits for the watch to be in place and then walks once: nothing is
    left for a second walk, and a file written after that walk reaches the next request as one
    changed path."""
    from k0maru.service import watcher as watching

    watcher = watching.ChangeWatcher.start(vault)
    try:
        assert watcher is not None
        assert watcher.wait_ready(wait=60)
    finally:
        if watcher:
            watcher.stop(wait=5)
    write(vault, "notes/a.md", "# A\n\nLease renewal.\n")
    live = VaultSession(Vault.open(vault, embed=False))
    with Service(live) as svc:
        live.watch()  # as `k0maru mcp` does before its SDK import
        assert svc.recall("lease renewal", mode="bm25").hits
        assert live._watcher is not None and live._watcher.take() == []  # no second walk due
        write(vault, "notes/b.md", "# B\n\nmarkerafter the walk.\n")
        assert live._watcher.sync() and live._watcher.take() == ["notes/b.md"]


def test_work_that_can_wait_waits_for_a_quiet_moment(vault: Path) -> None:
    """A server's first sniff of the conventions starts only once no request has been in flight for
    a while, so it does not share the CPU with the first answers; a session that closes ends the
    wait."""
    import threading

    live = VaultSession(Vault.open(vault, embed=False))
    ended: list[float] = []
    inside = threading.Event()
    with Service(live):

        def request() -> None:
            with live.session(fresh=False):
                inside.set()
                time.sleep(0.15)
            ended.append(time.monotonic())

        busy = threading.Thread(target=request)
        busy.start()
        assert inside.wait(60)  # a request is in flight
        assert live._wait_quiet(quiet=0.1)
        quiet_at = time.monotonic()
        busy.join()
        gave_up: list[bool] = []
        waiting = threading.Thread(target=lambda: gave_up.append(live._wait_quiet(quiet=30)))
        waiting.start()
    waiting.join(timeout=25)  # the session closed: the wait ends before its 30 s, and says so
    assert ended and quiet_at - ended[0] >= 0.09
    assert gave_up == [False]


def test_an_edit_is_found_by_the_very_next_request(vault: Path) -> None:
    """Written, then asked for at once, as an agent does: no retry, no sleep. The request waits for
    the watcher to have seen every change made before it (its own marker file), so it never answers
    from before the edit."""
    for i in range(30):
        write(vault, f"notes/n{i}.md", f"# Note {i}\n\nLease renewal, note {i}.\n")
    with Service(VaultSession(Vault.open(vault, embed=False))) as svc:
        assert svc.recall("lease renewal", mode="bm25").hits
        assert until(lambda: svc._session._watcher and svc._session._watcher._ready.is_set())
        svc.recall("lease renewal", mode="bm25")  # the walk that follows the watch's start
        took = []
        for i in range(20):
            write(vault, f"notes/n{i % 30}.md", f"# Note {i}\n\nmarkerinstant{i} saved.\n")
            t0 = time.perf_counter()
            hits = svc.recall(f"markerinstant{i}", mode="bm25").hits
            took.append(time.perf_counter() - t0)
            assert [h.path for h in hits] == [f"notes/n{i % 30}.md"], i
        (vault / "notes" / "n0.md").unlink()
        assert not svc.recall("markerinstant0", mode="bm25").hits
    took.sort()
    print(f"edit -> next request: median {took[len(took) // 2] * 1000:.0f} ms")


def test_changes_the_watcher_missed_are_found_by_the_safety_walk(vault: Path) -> None:
    """An event lost (taken here, as an overflowing queue would drop it) is found by the periodic
    stat walk; a watcher that stops is replaced, and the request that notices walks the vault at
    once."""
    write(vault, "notes/a.md", "# A\n\nLease renewal.\n")
    live = VaultSession(Vault.open(vault, embed=False))
    live.safety_walk_s = 0.3
    with Service(live) as svc:
        assert svc.recall("lease renewal", mode="bm25").hits
        watcher = live._watcher
        assert watcher is not None
        assert until(watcher._ready.is_set)
        svc.recall("lease renewal", mode="bm25")
        write(vault, "notes/lost.md", "# Lost\n\nmarkerlost event.\n")
        assert watcher.sync()
        assert watcher.take() == ["notes/lost.md"]  # the event is gone
        found = until(lambda: svc.recall("markerlost", mode="bm25").hits)
        assert found, "the safety walk never found the change"
        watcher.stop(wait=5)
        assert not watcher.running
        write(vault, "notes/dead.md", "# Dead\n\nmarkerdead watcher.\n")
        assert [h.path for h in svc.recall("markerdead", mode="bm25").hits] == ["notes/dead.md"]
        assert live._watcher is not None and live._watcher is not watcher  # a new one runs


def test_nothing_polls_between_requests(vault: Path) -> None:
    """No thread of ours wakes while no request comes (a 5 ms polling thread cost idle CPU and ~10
    ms per request): the notifier's own thread keeps the events, and the next request collects
    them, an edit made while idle included."""
    import threading

    from k0maru.service import watcher as watching

    (vault / "notes").mkdir()  # a new folder asks for a walk
    watcher = watching.ChangeWatcher.start(vault)
    try:
        assert watcher is not None and watcher.wait_ready(wait=60)
        assert watcher.take() is None  # the walk once the watch is in place
        assert until(lambda: all(t.name != "k0maru-watch" for t in threading.enumerate()))
        write(vault, "notes/idle.md", "# Idle\n\nwritten while no request came.\n")
        time.sleep(0.2)
        assert watcher.sync() and watcher.take() == ["notes/idle.md"]
    finally:
        if watcher:
            watcher.stop(wait=5)
    assert not watcher.running and not watcher.sync()  # stopped: the session walks instead


def test_requests_in_threads_each_see_their_own_edit(vault: Path) -> None:
    """Requests side by side: each one's sync marks the edit made just before it, whichever thread
    collected the events."""
    import threading

    from k0maru.service import watcher as watching

    (vault / "notes").mkdir()
    watcher = watching.ChangeWatcher.start(vault)
    assert watcher is not None and watcher.wait_ready(wait=60)
    watcher.take()
    seen: set[str] = set()
    missed: list[str] = []
    guard = threading.Lock()

    def edits(t: int) -> None:
        for i in range(25):
            name = f"notes/t{t}-{i}.md"
            write(vault, name, f"# {t} {i}\n")
            synced = watcher.sync(wait=30)
            with guard:
                seen.update(watcher.take() or [])
                if not synced or name not in seen:
                    missed.append(name)

    threads = [threading.Thread(target=edits, args=(t,)) for t in range(4)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        watcher.stop(wait=5)
    assert missed == [] and len(seen) == 100
