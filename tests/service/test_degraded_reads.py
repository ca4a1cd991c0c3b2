"""Read paths degrade (#32 items 8, 9): on a full disk (a real 2 MB tmpfs) and with a damaged vector
page (real bytes of the real index overwritten), `search` still answers from what is readable and
says what to run; writers stop on an index that `status` calls corrupt, until `scan --rebuild`."""

from __future__ import annotations

import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from k0maru.index.store import db_path
from tests.githooks.test_git import wait_for_worker
from tests.helpers import K0, write

pytestmark = pytest.mark.slow  # real processes, a mount


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A real 2 MB filesystem (tmpfs), unmounted afterwards."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip("mounting a tmpfs needs root: " + done.stderr.decode(errors="replace"))
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=True)


def fill(folder: Path) -> None:
    """Write until the filesystem is full."""
    with (folder / "filler").open("wb", buffering=0) as fh:
        try:
            while fh.write(b"\0" * 4096):
                pass
        except OSError:
            pass


def test_search_answers_on_a_full_disk_and_says_what_to_run(small_disk: Path, k0: K0) -> None:
    vault = small_disk / "vault"
    for i in range(5):
        write(vault, f"n{i}.md", f"# Note {i}\n\nlease renewal worker {i}\n")
    assert k0("init", "--vault", str(vault)).returncode == 0
    assert k0("scan", "--no-embed", "--vault", str(vault)).returncode == 0
    fill(small_disk)
    (vault / "n4.md").unlink()  # a change the next command wants to index: no room to write it
    r = k0("search", "--mode", "bm25", "lease", "--vault", str(vault))
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert r.stdout.count("lease renewal worker") == 5
    assert "the disk is full" in r.stderr and "free some space, then run `k0maru scan`" in r.stderr
    r = k0("scan", "--no-embed", "--vault", str(vault))
    errors = [line for line in r.stderr.splitlines() if line.startswith("k0maru: error:")]
    assert r.returncode == 5 and len(errors) == 1 and "the disk is full" in errors[0]
    (small_disk / "filler").unlink()
    r = k0("scan", "--no-embed", "--vault", str(vault))
    assert r.returncode == 0 and "removed 1" in r.stdout and "disk is full" not in r.stderr
    wait_for_worker(vault)


def damage_a_vector_page(root: Path) -> None:
    """Overwrite the start of a page that holds a stored vector (the overflow chain's next-page
    number)."""
    path = db_path(root)
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page = conn.execute("PRAGMA page_size").fetchone()[0]
        (blob,) = conn.execute(
            "SELECT vectors FROM vec_chunks_vector_chunks00 ORDER BY rowid LIMIT 1"
        ).fetchone()
    data = path.read_bytes()
    at = data.find(blob[page : page + 512])  # a stretch well inside the vector blob
    assert at > 0
    with path.open("r+b") as fh:
        fh.seek(at - at % page)
        fh.write(b"\xff\xff\xff\x7f" + b"\xab" * 60)


def test_a_damaged_vector_page_leaves_bm25_answering_and_stops_writers(demo: Path, k0: K0) -> None:
    damage_a_vector_page(demo)
    r = k0("search", "lease renewal", "--vault", str(demo))
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert r.stdout.startswith(" 1. ")
    assert "index is corrupt" in r.stderr and "run `k0maru scan --rebuild`" in r.stderr
    write(demo, "notes/new-one.md", "# New one\n\nzebrafinch\n")
    r = k0("scan", "--no-embed", "--vault", str(demo))
    errors = [line for line in r.stderr.splitlines() if line.startswith("k0maru: error:")]
    assert r.returncode == 4 and len(errors) == 1 and "k0maru scan --rebuild" in errors[0]
    with sqlite3.connect(db_path(demo)) as conn:  # nothing was written into it
        assert not conn.execute("SELECT 1 FROM documents WHERE path LIKE '%new-one%'").fetchall()
    assert k0("scan", "--rebuild", "--no-embed", "--vault", str(demo)).returncode == 0
    r = k0("search", "--mode", "bm25", "zebrafinch", "--vault", str(demo))
    assert r.returncode == 0 and "new-one.md" in r.stdout and "corrupt" not in r.stderr
    wait_for_worker(demo)
