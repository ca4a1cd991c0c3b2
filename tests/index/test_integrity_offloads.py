"""Offload records against their kept logs (#61): a row deleted while its log and sidecar stay in
`.k0maru/refs/` (status said "offloads 0" and sound), and a row whose log was deleted, are named
by `status` and `doctor`, and `doctor --fix` puts the row back from its sidecar (or drops the row
of no log) with one line each (a real index, real offloads through the service)."""

from __future__ import annotations

import io
from pathlib import Path

from k0maru.index import db
from k0maru.index.store import db_path
from k0maru.service.offload import offload
from k0maru.service.operations import Service
from k0maru.service.session import VaultSession
from k0maru.wiring.vault import Vault
from tests.helpers import write


def service(vault: Path) -> Service:
    return Service(VaultSession(Vault.open(vault, embed=False), rescan_interval=0, embed="worker"))


def offloaded(root: Path, runs: int) -> None:
    write(root, "n.md", "# Note\n\nlease.\n")
    with service(root) as svc:
        svc.scan()
    for i in range(runs):
        log = "".join(f"step {n}\n" for n in range(300)) + f"x.py:{i}: error: boom {i}\n"
        run = offload(str(root), None, stdin=io.BytesIO(log.encode()), out=io.BytesIO())
        assert run.record is not None


def sql(root: Path, statement: str) -> None:
    conn = db.connect(db_path(root))
    conn.execute(statement)
    conn.close()


def test_a_deleted_offload_row_is_found_and_put_back_from_its_sidecar(tmp_path: Path) -> None:
    offloaded(tmp_path, 2)
    sql(tmp_path, "DELETE FROM offloads WHERE rowid = (SELECT min(rowid) FROM offloads)")
    with service(tmp_path) as svc:
        said = svc.status().problems
        found = svc.doctor()
        fixed = svc.doctor(fix=True)
        after = svc.doctor()
        assert svc.status().problems == []
    assert any("1 kept offload log(s) have no record" in p for p in said)
    assert not found.sound and any("no record" in f for f in found.findings)
    assert "restored 1 offload record(s) from their sidecars" in fixed.repaired
    assert fixed.moved_aside is None  # repaired in place, not rebuilt
    assert after.sound
    conn = db.connect(db_path(tmp_path))
    assert conn.execute("SELECT count(*) FROM offloads").fetchone()[0] == 2
    conn.close()


def test_a_row_whose_log_was_deleted_is_named_and_dropped(tmp_path: Path) -> None:
    offloaded(tmp_path, 2)
    logs = sorted((tmp_path / ".k0maru/refs").glob("*.log*"))
    logs[0].unlink()
    with service(tmp_path) as svc:
        found = svc.doctor()
        fixed = svc.doctor(fix=True)
        assert svc.doctor().sound
    assert any("name a log that is not in .k0maru/refs" in f for f in found.findings)
    assert "dropped 1 offload record(s) whose log is gone" in fixed.repaired


def test_offloads_with_their_logs_are_sound(tmp_path: Path) -> None:
    offloaded(tmp_path, 2)
    with service(tmp_path) as svc:
        assert svc.doctor().sound
        assert svc.status().problems == []
