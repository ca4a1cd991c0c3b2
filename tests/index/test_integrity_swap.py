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
