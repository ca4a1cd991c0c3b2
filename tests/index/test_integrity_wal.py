"""Another database's write-ahead log copied in with its shared-memory file (#61): SQLite replays
it (nothing in a log names the database it belongs to), and the pages it brings are found by what
they break: here `meta` of another index, whose corpus version is behind this index's BM25
segment, so a query would never score the notes indexed after the segment (real SQLite)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from k0maru.errors import IndexCorruptError
from k0maru.index import db
from k0maru.index.store import db_path
from tests.helpers import write
from tests.index.test_integrity import NOTES, service


def note(vault: Path, i: int) -> None:
    write(vault, f"notes/n{i}.md", f"# Note {i}\n\nLease renewal {i}.\n\n## More\n\nRetry {i}.\n")


def kept_log(copy: Path, vault: Path) -> None:
    """Write a row in `copy` (another database: this index as it was) with its log kept, and
    put that log and its shared-memory file beside `vault`'s index, as a restored or cloned
    `.k0maru/` would hold them."""
    conn = db.connect(copy)
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    conn.execute("INSERT INTO meta VALUES ('written', 'there')")
    for suffix in ("-wal", "-shm"):
        shutil.copy(f"{copy}{suffix}", f"{db_path(vault)}{suffix}")
    conn.close()


def test_another_databases_log_with_its_shm_is_found_and_repaired(
    vault: Path, tmp_path: Path
) -> None:
    for i in range(NOTES - 1):
        note(vault, i)
    with service(vault) as svc:
        svc.scan()
    shutil.copy(db_path(vault), tmp_path / "copy.sqlite")  # the segment's version, 7 notes
    note(vault, NOTES - 1)
    with service(vault) as svc:
        want = {h.path for h in svc.recall("retry", mode="bm25", limit=20).hits}
    assert len(want) == NOTES
    kept_log(tmp_path / "copy.sqlite", vault)
    with service(vault) as svc:
        problems = svc.status().problems  # the open check: found and repaired, one line
        assert [p for p in problems if "corpus version" in p and "went back" in p], problems
        assert {h.path for h in svc.recall("retry", mode="bm25", limit=20).hits} == want
        report = svc.doctor()
        assert report.sound and report.findings == [], report
        assert svc.status().problems == []
    conn = db.connect(db_path(vault))  # the log was replayed: its row is there
    assert conn.execute("SELECT value FROM meta WHERE key = 'written'").fetchone() == ("there",)
    conn.close()


def test_a_log_deleted_under_a_holder_names_it_and_marks_nothing_corrupt(vault: Path) -> None:
    """A log deleted while another process holds the index (a running console): a command opening
    the index meanwhile says so and what to do, marks no damage; once the holder closes (it writes
    what its log held into the index), every command answers and nothing was lost."""
    for i in range(3):
        note(vault, i)
    with service(vault) as svc:
        svc.scan()
    held = db.connect(db_path(vault))  # the server's connection, its log kept
    held.execute("PRAGMA wal_autocheckpoint = 0")
    held.execute("INSERT INTO meta VALUES ('written', 'by the holder')")
    Path(f"{db_path(vault)}-wal").unlink()
    assert db.lost_log(db_path(vault))
    with (
        pytest.raises(IndexCorruptError, match="write-ahead log was deleted or cut") as caught,
        service(vault) as svc,
    ):
        svc.status()
    assert "restart that process" in str(caught.value) and "rebuild it)" in str(caught.value)
    assert db.known_corrupt(db_path(vault)) is None
    held.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # as the holder does on its next request
    held.close()
    with service(vault) as svc:
        assert svc.status().documents == 3 and svc.status().problems == []
    conn = db.connect(db_path(vault))
    assert conn.execute("SELECT value FROM meta WHERE key = 'written'").fetchone()
    conn.close()
