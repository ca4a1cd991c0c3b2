"""The stat signature is git's (#32 item 6): an edit that keeps the size and puts the old mtime back
(`touch -r`, `cp -p`, `rsync -a`, `tar x`) is seen by the scan and by the walk snapshot. Real
files."""

from __future__ import annotations

import os
from pathlib import Path

from k0maru.index import snapshot
from k0maru.index.store import Store
from k0maru.wiring.vault import Vault
from tests.helpers import scan, write


def same_size_edit_keeping_mtime(path: Path, text: str) -> None:
    """What `cp -p` or `touch -r` leaves: new content of the same size, the old mtime."""
    before = path.stat()
    assert len(text.encode()) == before.st_size
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def test_same_size_edit_with_the_old_mtime_is_seen(vault: Path) -> None:
    note = write(vault, "a.md", "# A\n\nalpha one\n")
    write(vault, "b.md", "# B\n\nbeta\n")
    assert scan(vault).added == 2
    same_size_edit_keeping_mtime(note, "# A\n\nalpha two\n")
    result = scan(vault)
    assert (result.modified, result.unchanged, result.files_read) == (1, 1, 1)
    with Store.open(vault) as store:
        doc = store.document_by_path("a.md")
        assert doc is not None
        assert "alpha two" in doc.body
    again = scan(vault)  # the new signature was stored: nothing is read
    assert (again.unchanged, again.files_read) == (2, 0)


def test_a_file_replaced_by_another_inode_is_read_again(vault: Path) -> None:
    note = write(vault, "a.md", "# A\n\nalpha one\n")
    assert scan(vault).added == 1
    st = note.stat()
    other = write(vault, "tmp/a.md.new", "# A\n\nalpha two\n")
    os.utime(other, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(other, note)  # an editor's atomic save, with the mtime preserved
    result = scan(vault)
    assert result.modified == 1 and note.stat().st_ino != st.st_ino


def test_the_walk_snapshot_sees_a_same_size_edit(vault: Path) -> None:
    note = write(vault, "a.md", "# A\n\nalpha one\n")
    with Vault.open(vault, create=True, writes_state=True) as opened:
        opened.index(embed=False, lexical=True)
        settings = opened.settings
    args = (vault, settings.include, settings.exclude, settings.max_file_bytes, False)
    assert snapshot.unchanged_files(*args) == 1  # a no-change scan stops after its walk
    same_size_edit_keeping_mtime(note, "# A\n\nalpha two\n")
    assert snapshot.unchanged_files(*args) is None
