import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest

from k0maru.config import load_settings
from k0maru.index.scanner import IncrementalScanner
from k0maru.index.store import Store, db_path
from tests.helpers import scan, write


def doc_count(root: Path) -> int:
    with Store.open(root) as store:
        return store.counts()["documents"]


def test_each_state_with_real_files(vault: Path) -> None:
    a = write(vault, "a.md", "# A\nalpha [[b]]\n")
    write(vault, "sub/b.md", "# B\nbeta\n")
    r = scan(vault)
    assert (r.added, r.modified, r.unchanged, r.removed, r.skipped) == (2, 0, 0, 0, 0)
    assert r.files_read == 2

    r = scan(vault)  # nothing changed: one stat per file, zero reads
    assert (r.added, r.modified, r.unchanged, r.removed) == (0, 0, 2, 0)
    assert r.files_read == 0 and r.bytes_read == 0

    st = a.stat()
    os.utime(a, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))  # touch: mtime only
    r = scan(vault)
    assert (r.modified, r.unchanged, r.touched, r.files_read) == (0, 2, 1, 1)
    r = scan(vault)  # the new mtime was stored: back to zero reads
    assert r.files_read == 0

    a.write_text("# A\nalpha changed [[b]]\n", encoding="utf-8")
    os.utime(a, ns=(st.st_atime_ns, st.st_mtime_ns + 9_000_000_000))
    r = scan(vault)
    assert (r.added, r.modified, r.unchanged) == (0, 1, 1)
    with Store.open(vault) as store:
        doc = store.document_by_path("a.md")
        assert doc is not None
        assert "alpha changed" in doc.body

    (vault / "sub" / "b.md").rename(vault / "sub" / "c.md")  # rename = remove + add
    r = scan(vault)
    assert (r.added, r.removed, r.unchanged) == (1, 1, 1)

    a.unlink()
    r = scan(vault)
    assert (r.removed, r.unchanged) == (1, 1)
    with Store.open(vault) as store:
        assert store.document_by_path("a.md") is None
        assert (
            store.conn.execute(
                "SELECT count(*) FROM chunks c LEFT JOIN documents d ON d.id = c.doc_id "
                "WHERE d.id IS NULL"
            ).fetchone()[0]
            == 0
        )
        assert store.conn.execute("SELECT count(*) FROM links").fetchone()[0] == 0


def test_bad_files_are_skipped_with_named_warnings(vault: Path) -> None:
    write(vault, "good.md", "# Good\n")
    (vault / "binary.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    (vault / "latin1.md").write_bytes("caf\xe9 cr\xe8me".encode("latin-1"))
    (vault / "huge.md").write_text("x" * 5000, encoding="utf-8")
    write(vault, "broken-fm.md", "---\ntitle: [unclosed\n---\n# Still indexed\nbody\n")
    r = scan(vault, max_file_bytes=4000)
    assert r.added == 2 and r.skipped == 3
    text = "\n".join(r.warnings)
    assert "binary.md" in text and "binary" in text
    assert "latin1.md" in text and "UTF-8" in text
    assert "huge.md" in text and "max_file_bytes" in text
    assert "broken-fm.md" in text and "YAML" in text
    with Store.open(vault) as store:
        doc = store.document_by_path("broken-fm.md")
        assert doc is not None
        assert doc.title == "Still indexed" and doc.frontmatter == {}


def test_gitignore_and_include_globs(vault: Path) -> None:
    write(vault, ".gitignore", "drafts/\n*.tmp.md\n")
    write(vault, "sub/.gitignore", "private.md\n")
    write(vault, "keep.md", "k")
    write(vault, "drafts/x.md", "x")
    write(vault, "y.tmp.md", "y")
    write(vault, "sub/private.md", "p")
    write(vault, "sub/public.md", "p")
    write(vault, "notes.txt", "t")
    write(vault, ".k0maru/ignored.md", "never")
    r = scan(vault)
    with Store.open(vault) as store:
        paths = [p for _, p, _ in store.list_documents()]
    assert paths == ["keep.md", "sub/public.md"] and r.added == 2
    scan(vault, include=["**/*.md", "**/*.txt"])
    with Store.open(vault) as store:
        assert "notes.txt" in [p for _, p, _ in store.list_documents()]


def test_scan_only_given_paths(vault: Path) -> None:
    write(vault, "a.md", "a")
    write(vault, "b.md", "b")
    scan(vault)
    write(vault, "a.md", "a2 changed")
    (vault / "b.md").unlink()
    write(vault, "c.md", "c")
    with Store.open(vault) as store:
        r = IncrementalScanner(store, load_settings(vault, embed=False)).scan(only=["a.md", "b.md"])
    assert (r.added, r.modified, r.removed) == (0, 1, 1)  # c.md was not asked about


def committed_documents(root: Path) -> int:
    """Documents a reader sees now (a read-only connection: it never waits for the scan's
    writes)."""
    uri = f"{db_path(root).as_uri()}?mode=ro"
    with closing(sqlite3.connect(uri, uri=True, timeout=60)) as conn:
        return int(conn.execute("SELECT count(*) FROM documents").fetchone()[0])


@pytest.mark.slow
def test_kill_mid_scan_leaves_index_intact(vault: Path) -> None:
    """A scan killed at any point leaves an intact index holding whole documents, and the next scan
    indexes exactly the rest. How far the killed scan got depends on the machine, so no count of it
    is asserted: it is killed once its first batch is committed, whenever that is."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
    from vaultgen import generate

    write(vault, "seed.md", "# Seed\n")
    scan(vault)
    generate(vault, 4000, min_kb=4, max_kb=8)
    proc = subprocess.Popen(
        [sys.executable, "-m", "k0maru", "scan", "--no-embed", "--vault", str(vault)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while proc.poll() is None and committed_documents(vault) <= 1:
            time.sleep(0.02)  # no deadline: the scan ends on its own at worst
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    with Store.open(vault) as store:
        assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        kept = store.counts()["documents"]
        partial = store.conn.execute(
            "SELECT count(*) FROM documents WHERE id NOT IN (SELECT doc_id FROM chunks)"
        ).fetchone()[0]
    assert 1 <= kept <= 4001 and partial == 0  # the seed survives; no document without its chunks
    rescan = scan(vault)
    assert (rescan.added, rescan.modified, rescan.removed) == (4001 - kept, 0, 0)
    assert doc_count(vault) == 4001


def test_a_gitignore_of_directory_names_matches_as_pathspec_does() -> None:
    """DirectoryNames (the walk's matcher for `.k0maru/`-style files, which spares importing
    pathspec) answers every path as pathspec's GitIgnoreSpec does over the same lines."""
    import pathspec
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from k0maru.index.walker import DirectoryNames, gitignore_spec

    names = ["build", ".k0maru", "node_modules", "a.b", "x-y_z"]
    segment = st.sampled_from([*names, "src", "notes", "build.md", "a", "b.md", ".k0maruX"])

    @settings(max_examples=300, deadline=None)
    @given(
        st.lists(st.sampled_from(names), min_size=1, max_size=3, unique=True),
        st.lists(segment, min_size=1, max_size=4),
        st.booleans(),
    )
    def agree(chosen: list[str], parts: list[str], is_dir: bool) -> None:
        lines = ["# generated", "", *(f"{n}/" for n in chosen)]
        ours = gitignore_spec(lines)
        assert isinstance(ours, DirectoryNames)
        path = "/".join(parts) + ("/" if is_dir else "")
        assert ours.match_file(path) == pathspec.GitIgnoreSpec.from_lines(lines).match_file(path), (
            lines,
            path,
        )

    agree()
    assert not isinstance(gitignore_spec(["*.pyc", "build/"]), DirectoryNames)
    assert not isinstance(gitignore_spec(["/build/"]), DirectoryNames)
    assert not isinstance(gitignore_spec(["!keep/"]), DirectoryNames)


def test_the_pages_a_connection_mapped_can_be_released(tmp_path: Path) -> None:
    """A server's warm-up reads the BM25 segment through mmap; the pages it mapped count in its RSS
    until `release_mapped_pages` unmaps them, and reads map again afterwards."""
    for i in range(40):
        write(
            tmp_path, f"n{i}.md", f"# Note {i}\n\n" + "lease renewal and SQLITE_BUSY " * 200 + "\n"
        )
    scan(tmp_path)

    def mapped_kb(path: Path) -> int:
        total, inside = 0, False
        for line in Path("/proc/self/smaps").read_text().splitlines():
            if line[:1].isalnum() and "-" in line.split()[0]:
                inside = line.rstrip().endswith(str(path))
            elif inside and line.startswith("Rss:"):
                total += int(line.split()[1])
        return total

    with Store.open(tmp_path) as store:
        path = db_path(tmp_path)
        assert store.text_sample(8) and len(store.lexical_corpus().__next__()) == 6
        assert sum(1 for _ in store.lexical_corpus()) >= 40 and mapped_kb(path) > 0
        size = store.conn.execute("PRAGMA mmap_size").fetchone()[0]
        store.release_mapped_pages()
        assert mapped_kb(path) == 0 and store.conn.execute("PRAGMA mmap_size").fetchone()[0] == size
        assert (
            sum(1 for _ in store.lexical_corpus()) >= 40 and mapped_kb(path) > 0
        )  # mapped again when read


def test_fifos_and_sockets_named_md_are_skipped_with_a_reason(vault: Path) -> None:
    import socket

    write(vault, "a.md", "# A\n")
    os.mkfifo(vault / "pipe.md")
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(vault / "sock.md"))
        result = scan(vault)
    why = "not a regular file (a FIFO, socket or device); not read"
    assert result.added == 1
    assert f"skipped pipe.md: {why}" in result.warnings
    assert f"skipped sock.md: {why}" in result.warnings
