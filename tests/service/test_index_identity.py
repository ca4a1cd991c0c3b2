"""Index identity: a long-running session notices when the index file it holds is moved aside, deleted or
replaced, and reopens the one at the path; `scan --rebuild` names a healthy index as such."""

from __future__ import annotations

from pathlib import Path

from k0maru.index.store import Store, db_path
from k0maru.index.vault import Vault
from k0maru.service.operations import Service
from k0maru.service.session import VaultSession
from tests.helpers import write


def server_session(root: Path) -> Service:
    return Service(VaultSession(Vault.open(root, embed=False), rescan_interval=0))


def paths(svc: Service, query: str) -> list[str]:
    return [h.path for h in svc.recall(query, mode="bm25").hits]


def test_a_rebuild_under_a_server_is_followed_and_not_called_corrupt(vault: Path) -> None:
    write(vault, "notes/a.md", "# A\n\nmarkeralpha lease.\n")
    with server_session(vault) as server:
        assert paths(server, "markeralpha") == ["notes/a.md"]
        with server_session(vault) as cli:
            moved, data = cli.scan(rebuild=True)
        assert moved is not None and ".old-" in moved.name and ".corrupt-" not in moved.name
        assert "healthy" in data["moved_aside"]["why"]
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
        assert server.status()["documents"] == 2
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
        moved, report = svc.scan(rebuild=True)
    assert moved is not None and ".corrupt-" in moved.name
    assert report["moved_aside"]["why"].startswith("corrupt: ")
    assert report["added"] == 1
