"""One SQLite library per process: no code path that opens the index may drop the POSIX locks
another connection of the same process holds on it (closing a file that a second SQLite library
opened releases every lock the process holds on that file: `/proc/locks`)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from k0maru.index.store import Store, db_path
from k0maru.layout import STATE_DIR
from tests.helpers import write

pytestmark = pytest.mark.skipif(not Path("/proc/locks").exists(), reason="needs Linux /proc/locks")


def held_locks(root: Path) -> list[tuple[str, ...]]:
    """This process's POSIX locks on the index file, its WAL and its shared-memory file."""
    inodes = set()
    for name in ("", "-wal", "-shm"):
        path = Path(f"{db_path(root)}{name}")
        if path.exists():
            inodes.add(os.stat(path).st_ino)
    out = []
    with open("/proc/locks", encoding="ascii") as fh:
        for line in fh:
            fields = line.split()
            if fields[1] == "->" or fields[4] != str(os.getpid()):
                continue
            if int(fields[5].rsplit(":", 1)[1]) in inodes:
                out.append((fields[3], fields[5], fields[6], fields[7]))
    return sorted(out)


def forget_trusted_index(root: Path) -> None:
    """Make the next no-change scan read the index (as after any write by another process)."""
    path = root / STATE_DIR / "scan-snapshot.json"
    snap = json.loads(path.read_text())
    snap.pop("index", None)
    path.write_text(json.dumps(snap))


def test_no_code_path_drops_the_locks_of_a_held_connection(vault: Path) -> None:
    from k0maru.index import db
    from k0maru.service import worker
    from k0maru.service.operations import Service, unchanged_scan
    from k0maru.service.session import VaultSession
    from k0maru.wiring.vault import Vault

    for i in range(5):
        write(vault, f"notes/n{i}.md", f"# Note {i}\n\nLease renewal and SQLITE_BUSY, note {i}.\n")
    with Vault.open(vault, embed=False) as v:
        v.index(lexical=True)

    held = Store.open(vault)
    try:
        held.conn.execute("SELECT count(*) FROM chunks").fetchone()
        before = held_locks(vault)
        assert before, "a WAL connection holds at least its shared-memory lock"

        forget_trusted_index(vault)
        assert (
            unchanged_scan(str(vault), embed=False) is not None
        )  # the fast no-change path read it
        assert held_locks(vault) == before
        db.sqlite_route()
        Store.open(vault).close()
        assert held_locks(vault) == before
        with Service(VaultSession(Vault.open(vault, embed=False), rescan_interval=0)) as svc:
            forget_trusted_index(vault)
            assert svc.recall("lease renewal", mode="bm25").hits
            svc.status()
            write(vault, "notes/new.md", "# New\n\nA fresh note on leases.\n")
            svc.scan()
            svc.flush("decision", "Keep leases short", "Leases renew every 5 s.", [], [])
        assert held_locks(vault) == before
        worker.run(vault, embed=False)
        assert held_locks(vault) == before
        # the held connection still works and sees what the others wrote
        assert held.conn.execute("SELECT count(*) FROM documents").fetchone()[0] == 7
    finally:
        held.close()
