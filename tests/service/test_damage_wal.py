"""A write-ahead log that is none of the index's (#61): SQLite replays any log whose frames match
its header into the database beside it, whichever database wrote it, and quick_check passes on the
result. A log found without its shared-memory file was left by no connection of this index: it is
set aside before SQLite opens the index, named in one line, and the notes are answered from the
index's own rows, the ones the log may have held indexed again (real SQLite, in-process)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from k0maru.index import db
from k0maru.index.store import db_path
from k0maru.service.operations import Service
from k0maru.service.session import VaultSession
from k0maru.wiring.vault import Vault
from tests.helpers import write


def service(vault: Path) -> Service:
    return Service(VaultSession(Vault.open(vault, embed=False), rescan_interval=0, embed="worker"))


def scanned(root: Path, word: str, notes: int = 3) -> None:
    for i in range(notes):
        write(root, f"notes/{word}{i}.md", f"# {word} {i}\n\nmarker{word} lease {i}.\n")
    with service(root) as svc:
        svc.scan()


@contextmanager
def held_open(root: Path) -> Iterator[None]:
    """A connection held open meanwhile: a service's close is not the last, so its write-ahead log
    stays, unmerged."""
    held = db.connect(db_path(root))
    try:
        held.execute("PRAGMA wal_autocheckpoint = 0")
        yield
    finally:
        held.close()


def wal_with_frames(root: Path, word: str) -> bytes:
    """The bytes of `root`'s write-ahead log after a scan indexed a new note, `word`-late."""
    with held_open(root):
        write(root, f"notes/{word}-late.md", f"# Late\n\nmarker{word} lease late.\n")
        with service(root) as svc:
            svc.scan()
        data = Path(f"{db_path(root)}-wal").read_bytes()
    assert len(data) > db.WAL_HEADER + db.FRAME_HEADER
    return data


def answers(root: Path, word: str) -> list[str]:
    with service(root) as svc:
        return sorted(h.path for h in svc.recall(f"marker{word}", mode="bm25", limit=10).hits)


def test_another_databases_log_is_set_aside_named_and_never_answered_from(tmp_path: Path) -> None:
    ours, other = tmp_path / "ours", tmp_path / "other"
    scanned(ours, "alpha")
    scanned(other, "bravo", notes=5)
    Path(f"{db_path(ours)}-wal").write_bytes(wal_with_frames(other, "bravo"))
    assert db.stray_wal(db_path(ours)) is not None
    with service(ours) as svc:
        problems = svc.status().problems
        assert len(problems) == 1 and "set aside a write-ahead log" in problems[0], problems
        assert svc.status().problems == []  # said once
        assert svc.doctor().sound
    assert answers(ours, "alpha") == [f"notes/alpha{i}.md" for i in range(3)]
    assert answers(ours, "bravo") == []
    assert list(db_path(ours).parent.glob("index.sqlite-wal.stray-*"))  # kept, not deleted


def test_a_log_whose_frames_do_not_match_its_header_is_set_aside(tmp_path: Path) -> None:
    ours = tmp_path / "ours"
    scanned(ours, "alpha")
    log = bytearray(wal_with_frames(ours, "alpha"))
    log[16:24] = bytes(b ^ 0xFF for b in log[16:24])  # another salt
    Path(f"{db_path(ours)}-wal").write_bytes(bytes(log))
    assert db.stray_wal(db_path(ours)) == "its frames do not match its header"
    with service(ours) as svc:
        assert any("set aside" in p for p in svc.status().problems)
    assert answers(ours, "alpha") == sorted(
        ["notes/alpha-late.md", *(f"notes/alpha{i}.md" for i in range(3))]
    )


def test_our_own_log_without_its_shm_loses_no_note(tmp_path: Path) -> None:
    """A copy of a vault taken while a connection held notes in the log only, its -shm left out:
    the log is set aside and the notes it held are indexed again from their files."""
    ours, copy = tmp_path / "ours", tmp_path / "copy"
    scanned(ours, "alpha")
    with held_open(ours):
        write(ours, "notes/late.md", "# Late\n\nmarkeralpha lease late.\n")
        with service(ours) as svc:
            svc.scan()
        shutil.copytree(ours, copy, ignore=shutil.ignore_patterns("*-shm"))
    assert db.stray_wal(db_path(copy)) is not None
    assert answers(copy, "alpha") == sorted(
        ["notes/late.md", *(f"notes/alpha{i}.md" for i in range(3))]
    )


def test_a_live_or_crashed_log_is_left_to_sqlite(tmp_path: Path) -> None:
    """With its -shm beside it, a log is open somewhere or a crash left it: never moved."""
    ours = tmp_path / "ours"
    scanned(ours, "alpha")
    with held_open(ours):
        assert Path(f"{db_path(ours)}-shm").exists()
        assert db.stray_wal(db_path(ours)) is None
        assert db.set_aside_stray_wal(db_path(ours)) is None
