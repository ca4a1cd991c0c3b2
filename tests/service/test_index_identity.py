"""Index identity: a long-running session notices when the index file it holds is moved aside,
deleted or replaced, and reopens the one at the path; `scan --rebuild` names a healthy index as
such."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from k0maru.index.store import Store, db_path
from k0maru.service.operations import Service
from k0maru.service.session import VaultSession
from k0maru.wiring.vault import Vault
from tests.helpers import wait_for_worker, write


def server_session(root: Path) -> Service:
    return Service(VaultSession(Vault.open(root, embed=False), rescan_interval=0))


def paths(svc: Service, query: str) -> list[str]:
    return [h.path for h in svc.recall(query, mode="bm25").hits]


def test_a_rebuild_under_a_server_is_followed_and_not_called_corrupt(vault: Path) -> None:
    write(vault, "notes/a.md", "# A\n\nmarkeralpha lease.\n")
    with server_session(vault) as server:
        assert paths(server, "markeralpha") == ["notes/a.md"]
        with server_session(vault) as cli:
            moved = cli.scan(rebuild=True).moved_aside
        assert moved is not None and ".old-" in Path(moved.path).name
        assert ".corrupt-" not in Path(moved.path).name and "healthy" in moved.why
        # a note indexed into the new file by another process is seen by the server ...
        write(vault, "notes/b.md", "# B\n\nmarkerbravo lease.\n")
        with Vault.open(vault, embed=False) as other:
            other.index(only=["notes/b.md"])
        assert paths(server, "markerbravo") == ["notes/b.md"]
        # ... and what the server indexes lands in the live file, not the moved one
        write(vault, "notes/c.md", "# C\n\nmarkercharlie lease.\n")
        assert paths(server, "markercharlie") == ["notes/c.md"]
    with Store.open(vault) as live:
        got = {p for _, p, _ in live.list_documents()}
    assert got == {"notes/a.md", "notes/b.md", "notes/c.md"}


def test_a_deleted_index_is_replaced_not_served_as_a_ghost(vault: Path) -> None:
    write(vault, "notes/a.md", "# A\n\nmarkeralpha lease.\n")
    with server_session(vault) as server:
        assert paths(server, "markeralpha") == ["notes/a.md"]
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db_path(vault)}{suffix}").unlink(missing_ok=True)
        write(vault, "notes/d.md", "# D\n\nmarkerdelta lease.\n")
        assert paths(server, "markerdelta") == ["notes/d.md"]
        assert server.status().documents == 2
    assert db_path(vault).exists()
    with Store.open(vault) as live:
        assert live.counts()["documents"] == 2


def test_a_corrupt_index_is_named_corrupt_with_the_reason(vault: Path) -> None:
    write(vault, "notes/a.md", "# A\n\nmarkeralpha lease.\n")
    with server_session(vault) as svc:
        svc.scan()
    path = db_path(vault)
    data = bytearray(path.read_bytes())
    data[:16] = b"not a database!!"
    path.write_bytes(bytes(data))
    with server_session(vault) as svc:
        report = svc.scan(rebuild=True)
    moved = report.moved_aside
    assert moved is not None and ".corrupt-" in Path(moved.path).name
    assert moved.why.startswith("corrupt: ")
    assert report.added == 1


def _wait_for_vectors(path: Path, seconds: float, what: str) -> None:
    """Until the index file `path` holds a vector, failing with `what` after `seconds`."""
    deadline = time.monotonic() + seconds
    while _embedded(path) == 0:
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


def _embedded(path: Path) -> int:
    from k0maru.index.db import sqlite3

    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return int(conn.execute("SELECT count(*) FROM chunks WHERE embedded = 1").fetchone()[0])
    finally:
        conn.close()


@pytest.mark.slow
def test_a_rebuild_while_the_worker_embeds_retargets_it(vault: Path) -> None:
    """The worker follows `scan --rebuild` into the new index instead of filling the moved-aside
    file."""
    from k0maru.service import worker
    from tests.helpers import run_k0maru
    from tests.service.test_backlog import backlog_vault

    backlog_vault(vault, 150)
    assert worker.request(vault)
    _wait_for_vectors(db_path(vault), 120, "the worker embedded nothing")
    r = run_k0maru("scan", "--vault", str(vault), "--rebuild", "--json")
    assert r.returncode == 0, r.stderr
    said = re.search(r"moved the old index to (\S+) \((.*)\)", r.stderr)
    assert said and "healthy" in said.group(2), r.stderr
    moved = Path(said.group(1))
    assert ".old-" in moved.name
    try:
        _wait_for_vectors(db_path(vault), 60, "the worker never came to the new index")
        aside = _embedded(moved)
        time.sleep(2)
        assert _embedded(moved) == aside  # nothing more goes to the moved-aside file
    finally:
        wait_for_worker(vault, 180)
    with Store.open(vault) as live:
        assert live.unembedded_chunks() == 0


def test_a_write_to_a_moved_aside_index_is_refused(vault: Path) -> None:
    """A connection that still holds the file a rebuild moved aside writes nothing into it."""
    from k0maru.errors import IndexReplacedError

    write(vault, "notes/a.md", "# A\n\nmarkeralpha lease.\n")
    with Vault.open(vault, embed=False) as v:
        v.index()
    with Store.open(vault) as old:
        with server_session(vault) as other:
            aside = other.scan(rebuild=True).moved_aside
        assert aside is not None
        moved = Path(aside.path)
        with (
            pytest.raises(IndexReplacedError, match="moved aside or replaced"),
            old.transaction(),
        ):
            old.set_meta("written_after_the_move", "1")
    from k0maru.index.db import sqlite3

    conn = sqlite3.connect(f"file:{moved}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT value FROM meta WHERE key = 'written_after_the_move'")
        assert rows.fetchall() == []
    finally:
        conn.close()


@pytest.mark.slow
def test_the_worker_writes_no_batch_into_the_moved_aside_file(vault: Path) -> None:
    """A rebuild made while the worker embeds: from the moment the file is moved, not one more
    vector lands in it (the batch in flight is dropped, not committed there); the worker goes on in
    the new index."""
    from k0maru.service import worker
    from tests.service.test_backlog import backlog_vault

    backlog_vault(vault, 150)
    assert worker.request(vault)
    _wait_for_vectors(db_path(vault), 120, "the worker embedded nothing")
    with server_session(vault) as v:
        moved_aside = v.scan(rebuild=True).moved_aside
        assert moved_aside is not None
        moved = Path(moved_aside.path)
        aside = _embedded(moved)  # read the moment the rebuild returns
    try:
        worker.request(vault)
        _wait_for_vectors(db_path(vault), 120, "the worker never came to the new index")
        assert _embedded(moved) == aside
    finally:
        wait_for_worker(vault, 180)
    assert _embedded(moved) == aside


def test_a_deleted_index_under_a_server_is_reported_on_the_next_request(vault: Path) -> None:
    write(vault, "notes/a.md", "# A\n\nmarkeralpha lease.\n")
    with server_session(vault) as server:
        assert paths(server, "markeralpha") == ["notes/a.md"]
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db_path(vault)}{suffix}").unlink(missing_ok=True)
        answer = server.recall("markeralpha", mode="bm25")
        assert [h.path for h in answer.hits] == ["notes/a.md"]
        assert any("deleted or replaced" in w for w in answer.warnings), answer.warnings


def test_a_deleted_wal_under_a_server_loses_no_note(vault: Path) -> None:
    write(vault, "notes/a.md", "# A\n\nmarkeralpha lease.\n")
    with server_session(vault) as server:
        assert paths(server, "markeralpha") == ["notes/a.md"]
        for i in range(3):
            server.flush("decision", f"Quorum {i}", f"markerquorum{i} reads.", [], [])
        with Store.open(
            vault
        ) as reader:  # another process's connection: the server's is not the last
            reader.counts()
            Path(f"{db_path(vault)}-wal").unlink()
            answer = server.recall("markerquorum1", mode="bm25")
            assert len(answer.hits) == 1
            assert any("write-ahead log" in w for w in answer.warnings), answer.warnings
        with Store.open(vault) as other:  # a process started now sees every note the server wrote
            assert other.counts()["documents"] == 4
