"""A rebuild's swap (#61): a new index built beside the old one (`Store.open(path=...)`) replaces it
in one rename, only once whole; a connection to the old one keeps reading it until it reopens, and
the old one's write-ahead log is never adopted by the new one (real SQLite)."""

from __future__ import annotations

import os
from pathlib import Path

from k0maru.index import store as stores
from k0maru.index.store import Store, db_path


def test_the_new_index_replaces_the_old_in_one_rename(vault: Path) -> None:
    path = db_path(vault)
    with Store.open(vault) as old:
        old.set_meta("which", "old")
        old.conn.execute("PRAGMA wal_autocheckpoint = 0")
        old.set_meta("pending", "in the old log only")  # left in the old -wal
        before = os.stat(path).st_ino
        new = stores.beside(path)
        with Store.open(vault, path=new) as built:
            built.set_meta("which", "new")
        assert old.get_meta("which") == "old" and not old.replaced()  # still the old, at its path
        moved = stores.swap_in(new, path, "old", old)
        assert moved is not None and os.stat(moved).st_ino == before
        assert old.replaced() and old.get_meta("which") == "old"  # reads the old until it reopens
    assert not new.exists() and not Path(f"{new}-wal").exists()
    with Store.open(vault) as live:
        assert live.get_meta("which") == "new" and live.get_meta("pending") is None
    with Store.open(vault, path=moved) as kept:  # the old one whole, its log beside it
        assert kept.get_meta("pending") == "in the old log only"


def test_what_a_killed_rebuild_left_beside_is_cleared(vault: Path) -> None:
    path = db_path(vault)
    Store.open(vault).close()
    new = path.with_name(path.name + ".new")
    for suffix in ("", "-wal", "-shm"):
        Path(f"{new}{suffix}").write_bytes(b"left by a killed rebuild")
    assert stores.beside(path) == new
    assert [p for p in path.parent.iterdir() if p.name.startswith(new.name)] == []


def test_a_rebuild_is_swapped_in_with_the_vectors_of_the_same_texts(vault: Path) -> None:
    """A sound index's vectors go into the new one by their chunk's text before the swap: a
    rebuild leaves no chunk to embed again (nor a disk filling meanwhile with the index
    vectorless), and a damaged vector is not carried."""
    from tests.index.test_integrity import NAN, damage, indexed, service

    indexed(vault)
    damage(vault, "INSERT OR REPLACE INTO meta VALUES ('embed_model', 'the model')")
    damage(vault, f"UPDATE vec_chunks SET embedding = x'{NAN}' WHERE rowid = 3")

    def vectors() -> dict[str, bytes]:
        with Store.open(vault) as s:
            rows = s.conn.execute(
                "SELECT c.hash, v.embedding FROM chunks c JOIN vec_chunks v ON v.rowid = c.id"
            )
            return dict(rows.fetchall())

    before = vectors()
    with Store.open(vault) as s:
        (bad,) = s.conn.execute("SELECT hash FROM chunks WHERE id = 3").fetchone()
    with service(vault) as svc:
        assert svc.scan(rebuild=True).moved_aside is not None
    with Store.open(vault) as s:
        assert s.unembedded_chunks() == 1 and s.get_meta("embed_model") == "the model"
    assert vectors() == {h: v for h, v in before.items() if h != bad}
