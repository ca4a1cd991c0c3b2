"""Everything under `.k0maru/` is a plain file or folder of the vault's own (#61 item 2): a
committed symlink there (`index.sqlite`, `hooks.log`, `refs/`) is refused with one line and never
followed, and a FIFO at `.k0maru/index.sqlite` is refused at once instead of hanging the scan."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from k0maru.errors import ConfigError
from k0maru.fsutil import check_state_file, ensure_state_dir, open_append
from k0maru.index import snapshot
from k0maru.service import worker
from k0maru.service.operations import Service
from tests.helpers import scan, write


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    return folder


@pytest.mark.parametrize("name", ["index.sqlite", "index.sqlite-wal", "hooks.log", "refs"])
def test_a_symlink_in_the_state_folder_is_refused_and_never_followed(
    vault: Path, outside: Path, name: str
) -> None:
    write(vault, "a.md", "# A\n")
    (vault / ".k0maru").mkdir()
    (vault / ".k0maru" / name).symlink_to(outside / name)
    with pytest.raises(ConfigError) as refused:
        scan(vault)
    line = str(refused.value)
    assert "\n" not in line and str(vault / ".k0maru" / name) in line
    assert "symbolic link" in line and "remove it" in line
    worker.log_line(vault, "a hook's line")
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("operation", ["status", "doctor"])
def test_status_and_doctor_name_a_dangling_index_link_as_scan_does(
    vault: Path, outside: Path, operation: str
) -> None:
    """Before: "no index; run `k0maru scan`", which then refused the link."""
    write(vault, "a.md", "# A\n")
    (vault / ".k0maru").mkdir()
    (vault / ".k0maru" / "index.sqlite").symlink_to(outside / "gone.sqlite")
    with Service.open(str(vault), rescan=False) as svc, pytest.raises(ConfigError) as refused:
        getattr(svc, operation)()
    assert "symbolic link" in str(refused.value) and "remove it" in str(refused.value)


def test_a_fifo_at_the_index_is_refused_at_once(vault: Path) -> None:
    write(vault, "a.md", "# A\n")
    scan(vault)
    db = vault / ".k0maru" / "index.sqlite"
    db.unlink()
    os.mkfifo(db)
    assert snapshot.known_walk(vault, ["**/*.md"], [], 1 << 20, False) is None
    with pytest.raises(ConfigError, match="is a FIFO"):
        scan(vault)
    with pytest.raises(ConfigError, match="is a FIFO"):
        ensure_state_dir(vault)


def test_open_append_never_follows_a_symlink(vault: Path, outside: Path) -> None:
    (vault / "log").symlink_to(outside / "target")
    with pytest.raises(OSError):
        open_append(vault / "log")
    assert list(outside.iterdir()) == []


def test_plain_state_files_pass(vault: Path) -> None:
    state = ensure_state_dir(vault)
    (state / "index.sqlite").write_bytes(b"")
    check_state_file(state / "index.sqlite")
    check_state_file(state / "missing")


def test_the_index_is_never_opened_through_a_link(tmp_path: Path, outside: Path) -> None:
    """The last door: SQLite itself is never handed a linked database or write-ahead log, whoever
    opens it (a server, the worker, the snapshot's look at the corpus version)."""
    from k0maru.index import db

    state = tmp_path / ".k0maru"
    state.mkdir()
    (state / "index.sqlite-wal").symlink_to(outside / "wal")
    with pytest.raises(ConfigError, match="symbolic link"):
        db.connect(state / "index.sqlite")
    with pytest.raises(ConfigError, match="symbolic link"):
        db.index_as_left(state / "index.sqlite", "v1", embed=False)
    assert list(outside.iterdir()) == []
