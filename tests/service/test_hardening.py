"""Bad input and hostile conditions: each gets one line and a non-zero exit where it fails, nothing
is lost, and the index is never used or written in a state it cannot vouch for."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from k0maru.index.db import sqlite3  # the library the index connections use (one per process)
from k0maru.index.store import Store, db_path
from tests.helpers import K0, write

pytestmark = pytest.mark.slow  # end-to-end: real processes (see CONTRIBUTING.md)


def one_line_error(r: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in r.stderr, r.stderr
    lines = [line for line in r.stderr.splitlines() if line.startswith("k0maru: error:")]
    assert len(lines) == 1, r.stderr
    return lines[0]


def test_corrupt_page_inside_a_valid_index_is_one_line(demo: Path, k0: K0) -> None:
    path = db_path(demo)
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = path.stat().st_size
    with path.open("r+b") as fh:  # keep the header (page 1) valid, wreck pages in the middle
        fh.seek(size // 3)
        fh.write(os.urandom(min(200_000, size // 3)))
    for args in (["status"], ["search", "--no-scan", "lease"], ["scan", "--full", "--no-embed"]):
        r = k0(*args, "--vault", str(demo))
        if args[0] == "search" and r.returncode == 0:  # only vector pages hit: BM25 answers (#32)
            assert "Traceback" not in r.stderr and r.stdout.startswith(" 1. ")
            line = next(w for w in r.stderr.splitlines() if "vector channel off" in w)
        else:
            assert r.returncode == 4, (args, r.stderr)
            line = one_line_error(r)
        assert "index is corrupt" in line and "k0maru scan --rebuild" in line and str(path) in line


def test_newer_schema_is_refused_and_not_written(vault: Path, k0: K0) -> None:
    write(vault, "a.md", "# A\n")
    k0("scan", "--vault", str(vault), "--no-embed")
    with sqlite3.connect(db_path(vault)) as conn:
        conn.execute("INSERT INTO schema_version VALUES (999, 0)")
    before = db_path(vault).read_bytes()
    write(vault, "b.md", "# B\n")
    for args in (["status"], ["scan", "--no-embed"], ["search", "x"]):
        r = k0(*args, "--vault", str(vault))
        assert r.returncode == 4 and "written by a newer k0maru (schema 999" in one_line_error(r)
    assert db_path(vault).read_bytes() == before


def test_read_only_state_dir_serves_reads(demo: Path, k0: K0) -> None:
    state = demo / ".k0maru"
    if os.geteuid() == 0:  # root ignores permission bits: make the folder a read-only mount instead
        subprocess.run(["mount", "--bind", str(state), str(state)], check=True)
        subprocess.run(["mount", "-o", "remount,ro,bind", str(state)], check=True)
    else:
        for p in state.iterdir():
            p.chmod(0o444)
        state.chmod(0o555)
    try:
        write(demo, "20_Cards/new-card.md", "# New card\n\nemu\n")
        r = k0("search", "--vault", str(demo), "--mode", "bm25", "--json", "SQLITE_BUSY")
        assert r.returncode == 0, r.stderr
        assert '"20_Cards/sqlite-busy-timeout.md"' in r.stdout and "index not refreshed" in r.stderr
        r = k0("flush", "--vault", str(demo), "--kind", "card", "--title", "T", input="body")
        assert r.returncode == 5 and "read-only" in one_line_error(r)
    finally:
        if os.geteuid() == 0:
            subprocess.run(["umount", str(state)], check=True)
        else:
            state.chmod(0o755)


def test_flush_refuses_a_body_the_scanner_would_skip(demo: Path, k0: K0) -> None:
    body = "x" * 300_000
    r = k0(
        "flush",
        "--vault",
        str(demo),
        "--kind",
        "card",
        "--title",
        "Huge",
        input=body,
        env={"K0MARU_MAX_FILE_BYTES": "200000"},
    )
    assert r.returncode == 2 and "max_file_bytes=200,000" in one_line_error(r)
    assert not list(demo.rglob("huge*.md"))


@pytest.mark.parametrize(
    "title,tags,needle",
    [
        ("two\nlines", "", "title"),
        ("ok", "a,b\nc", "tag"),
        ("t" * 300, "", "title is 300 characters"),
    ],
)
def test_note_fields_are_one_line_and_bounded(
    demo: Path, k0: K0, title: str, tags: str, needle: str
) -> None:
    r = k0(
        "flush",
        "--vault",
        str(demo),
        "--kind",
        "card",
        "--title",
        title,
        "--tags",
        tags,
        input="body",
    )
    line = one_line_error(r)
    assert r.returncode == 2 and needle in line and len(line) < 400


def test_huge_query_and_node_id_are_refused_without_echo(demo: Path, k0: K0) -> None:
    r = k0("search", "--vault", str(demo), "--no-scan", "q" * 100_000)
    assert r.returncode == 2 and "the limit is 2,000" in one_line_error(r) and len(r.stderr) < 300
    r = k0("log", "show", "n" * 100_000, "--vault", str(demo))
    assert r.returncode == 2 and len(r.stderr) < 300


def test_symlinks_inside_outside_and_looping(vault: Path, tmp_path: Path, k0: K0) -> None:
    write(vault, "notes/index.md", "# Index\n\nokapi\n")
    (vault / "notes" / "README.md").symlink_to("index.md")
    outside = write(tmp_path, "elsewhere/secret.md", "# Secret\n")
    (vault / "notes" / "secret.md").symlink_to(outside)
    (vault / "loop").symlink_to(vault / "loop")
    import json

    r = k0("scan", "--vault", str(vault), "--no-embed", "--json")
    data = json.loads(r.stdout)
    assert data["added"] == 1 and data["symlinks"] == 1 and data["skipped"] == 2
    assert "notes/secret.md: a symlink to" in r.stderr and "outside the vault" in r.stderr
    assert "loop: a symlink loop" in r.stderr


def test_file_deleted_mid_scan_says_so(vault: Path) -> None:
    from k0maru.config import load_settings
    from k0maru.index.prepare import Job, prepare
    from k0maru.index.scan_result import ScanResult
    from k0maru.index.scanner import IncrementalScanner
    from k0maru.index.walker import Entry

    settings = load_settings(vault, embed=False)
    gone = Entry("gone.md", str(vault / "gone.md"), 1, 10)  # walked, then deleted before its read
    ready = prepare(Job(gone.rel, gone.abspath, 1, settings.max_file_bytes, None, False, 1000))
    with Store.open(vault) as store:
        scanner = IncrementalScanner(store, settings)
        result = ScanResult()
        with store.transaction():
            scanner._apply_one(gone, None, result, False, ready)
    assert result.skipped == 1 and "vanished during the scan" in result.warnings[0]


N_KILLED = 8000


def test_killed_scan_leaves_whole_documents_and_resumes(vault: Path, k0: K0) -> None:
    for i in range(N_KILLED):
        write(
            vault,
            f"n/{i:04d}.md",
            f"# Note {i}\n\n" + "lorem ipsum dolor sit amet " * 40 + f"\n\n[[{i + 1:04d}]]\n",
        )
    proc = subprocess.Popen(
        [sys.executable, "-m", "k0maru", "scan", "--vault", str(vault), "--no-embed"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 60
    while time.time() < deadline:
        time.sleep(0.02)
        if db_path(vault).exists():
            try:
                with sqlite3.connect(db_path(vault), timeout=1) as c:
                    if c.execute("SELECT count(*) FROM documents").fetchone()[0] > 0:
                        break
            except sqlite3.Error:
                pass
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    with Store.open(vault) as store:
        docs = len(store.cached_documents())
        orphans = store.conn.execute(
            "SELECT count(*) FROM documents d WHERE NOT EXISTS "
            "(SELECT 1 FROM chunks c WHERE c.doc_id = d.id)"
        ).fetchone()[0]
    assert 0 < docs < N_KILLED and orphans == 0  # killed midway, every indexed document whole
    r = k0("scan", "--vault", str(vault), "--no-embed", "--json")
    import json

    assert json.loads(r.stdout)["added"] == N_KILLED - docs
    with Store.open(vault) as store:
        unresolved = store.conn.execute(
            "SELECT count(*) FROM links WHERE dst_id IS NULL"
        ).fetchone()[0]
    assert unresolved == 1  # only the last note's link to a note that does not exist
