"""A rebuild never leaves less than it found (#61): the new index is built beside the old one
(`index.sqlite.new`) while readers answer from the old, and renamed over it only when whole; one
that cannot be whole (a full disk, a state folder that cannot be written) leaves the old index in
place, untouched, and says why in one line."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from k0maru.errors import IndexDiskFullError, K0maruError
from k0maru.index.store import Store, db_path
from k0maru.service.operations import Service
from k0maru.service.session import VaultSession
from k0maru.wiring.vault import Vault
from tests.helpers import write

NOTES = 120


def indexed(vault: Path) -> None:
    for i in range(NOTES):
        words = " ".join(f"word{i}x{k}" for k in range(60))
        write(vault, f"notes/n{i}.md", f"# Note {i}\n\nLease renewal {i}. {words}\n")
    with Service(VaultSession(Vault.open(vault, embed=False), rescan_interval=0)) as svc:
        svc.scan()


def documents(vault: Path) -> int:
    with Store.open(vault) as store:
        return store.counts()["documents"]


def test_a_rebuild_whose_build_fails_leaves_the_old_index_untouched(vault: Path) -> None:
    indexed(vault)
    before = os.stat(db_path(vault)).st_ino
    new = db_path(vault).with_name("index.sqlite.new")
    (new / "x").mkdir(parents=True)  # the new index cannot be made there
    with (
        Service(VaultSession(Vault.open(vault, embed=False), rescan_interval=0)) as svc,
        pytest.raises(K0maruError, match="old index stays in place") as raised,
    ):
        svc.scan(rebuild=True)
    assert "\n" not in str(raised.value) and "is a folder" in str(raised.value)
    assert os.stat(db_path(vault)).st_ino == before
    assert documents(vault) == NOTES
    assert list(db_path(vault).parent.glob("index.sqlite.old-*")) == []


def test_readers_answer_from_the_old_index_until_the_new_one_is_whole(vault: Path) -> None:
    indexed(vault)
    before = os.stat(db_path(vault)).st_ino
    seen: list[tuple[int, int, int]] = []

    def meanwhile(done: int, total: int) -> None:  # called while the new index is built
        if seen:
            return
        with Service(VaultSession(Vault.open(vault, embed=False), rescan_interval=0)) as reader:
            hits = reader.recall("lease renewal", mode="bm25", limit=200).hits
            seen.append(
                (len({h.path for h in hits}), documents(vault), os.stat(db_path(vault)).st_ino)
            )

    session = VaultSession(
        Vault.open(vault, embed=False), rescan_interval=0, scan_progress=meanwhile
    )
    with Service(session) as svc:
        moved = svc.scan(rebuild=True).moved_aside
        assert moved is not None and moved.why.startswith("healthy")
        assert svc.status().documents == NOTES
    assert seen == [(NOTES, NOTES, before)]  # the old index, whole, at its path
    assert os.stat(db_path(vault)).st_ino != before
    assert os.stat(moved.path).st_ino == before
    assert not db_path(vault).with_name("index.sqlite.new").exists()


def test_a_rebuild_without_room_for_the_new_index_moves_nothing(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    indexed(vault)
    before = os.stat(db_path(vault)).st_ino
    full = os.statvfs_result((4096, 4096, 10**6, 10, 10, 10**5, 10**5, 10**5, 0, 255))
    monkeypatch.setattr(os, "statvfs", lambda _: full)  # 40 KB free: less than the index takes
    with (
        Service(VaultSession(Vault.open(vault, embed=False), rescan_interval=0)) as svc,
        pytest.raises(IndexDiskFullError, match="old index stays in place"),
    ):
        svc.scan(rebuild=True)
    assert os.stat(db_path(vault)).st_ino == before
    assert documents(vault) == NOTES


@pytest.mark.slow
def test_scan_rebuild_on_a_full_disk_leaves_the_old_index(vault: Path) -> None:
    """The real command, in a process whose files cannot grow past 64 KB (RLIMIT_FSIZE): the new
    index cannot be whole, the old one was never touched, one line says why."""
    indexed(vault)
    before = os.stat(db_path(vault)).st_ino
    assert db_path(vault).stat().st_size > 64 * 1024

    def limited() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))

    r = subprocess.run(
        [sys.executable, "-m", "k0maru", "scan", "--rebuild", "--no-embed", "--vault", str(vault)],
        capture_output=True,
        text=True,
        timeout=180,
        preexec_fn=limited,
        env={**os.environ, "K0MARU_EMBED": "false"},
    )
    assert r.returncode != 0 and "Traceback" not in r.stderr, r.stderr
    assert "old index stays in place" in r.stderr, r.stderr
    assert os.stat(db_path(vault)).st_ino == before
    assert documents(vault) == NOTES


@pytest.mark.slow
def test_a_rebuild_of_a_read_only_state_folder_moves_nothing(vault: Path) -> None:
    """The real command, without the capabilities that let root write any folder (`setpriv`, as
    tests/index/test_unreadable_folder.py does): it refuses before anything moves."""
    indexed(vault)
    before = os.stat(db_path(vault)).st_ino
    state = db_path(vault).parent
    state.chmod(0o555)
    try:
        r = subprocess.run(
            ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"]
            + [sys.executable, "-m", "k0maru", "scan", "--rebuild", "--no-embed"]
            + ["--vault", str(vault)],
            capture_output=True,
            text=True,
            timeout=180,
            env={**os.environ, "K0MARU_EMBED": "false"},
        )
    finally:
        state.chmod(0o755)
    assert r.returncode != 0 and "Traceback" not in r.stderr, r.stderr
    assert "old index stays in place" in r.stderr, r.stderr
    assert os.stat(db_path(vault)).st_ino == before
    assert documents(vault) == NOTES
