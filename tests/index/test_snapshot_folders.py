"""A no-change check stats the folders and files the last walk found without listing any folder
(#44), and still sees every change: in-place edits, new files, a .gitignore edited, a folder changed
a moment ago. Real files and a real index; `os.scandir` is only counted."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from k0maru.index import snapshot
from k0maru.index.walker import settled
from k0maru.layout import STATE_DIR
from k0maru.wiring.vault import Vault
from tests.helpers import write

AN_HOUR_NS = 3600 * 10**9
# The vault, and the arguments of `snapshot.unchanged_files` for it.
Indexed = tuple[Path, tuple[Path, list[str], list[str], int, bool]]


def age(path: Path) -> None:
    """Set a folder's or file's mtime an hour back, as for notes written long before the scan."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - AN_HOUR_NS))


@pytest.fixture()
def indexed(vault: Path) -> Indexed:
    for i in range(3):
        write(vault, f"notes/n{i}.md", f"# Note {i}\n\nlease {i}\n")
    write(vault, ".gitignore", "drafts/\n")
    with Vault.open(vault, create=True, writes_state=True) as opened:
        for folder in (vault / "notes", vault):  # written long before this walk
            age(folder)
        opened.index(embed=False, lexical=True)
        s = opened.settings
    return vault, (vault, s.include, s.exclude, s.max_file_bytes, False)


@pytest.fixture()
def listings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The folders `os.scandir` lists from here on."""
    listed: list[str] = []
    real = os.scandir

    def counted(path: str = ".") -> object:
        listed.append(str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", counted)
    return listed


def test_a_check_with_nothing_changed_lists_no_folder(
    indexed: Indexed, listings: list[str]
) -> None:
    _, args = indexed
    assert snapshot.unchanged_files(*args) == 3
    assert listings == []


def test_an_in_place_edit_keeping_the_folder_mtime_is_seen(
    indexed: Indexed, listings: list[str]
) -> None:
    vault, args = indexed
    folder = vault / "notes"
    before = folder.stat().st_mtime_ns
    (vault / "notes/n1.md").write_text("# Note 1\n\nrenewed\n", encoding="utf-8")
    assert folder.stat().st_mtime_ns == before  # written in place: the folder does not show it
    assert snapshot.unchanged_files(*args) is None
    assert listings == []


def test_an_in_place_edit_is_indexed_from_the_check_without_a_second_walk(
    indexed: Indexed, listings: list[str]
) -> None:
    """The check stats every file it knows; when only files changed, the scan takes those stats
    as its walk instead of listing every folder and stat()ing every file again, and leaves a
    snapshot the next check finds current."""
    vault, args = indexed
    (vault / "notes/n1.md").write_text("# Note 1\n\nrenewed quokka\n", encoding="utf-8")
    with Vault.open(vault) as v:
        report = v.index(embed=False, lexical=True)
        assert (report.scan.modified, report.scan.unchanged) == (1, 2)
        hits = v.recall.search("quokka", limit=3, mode="bm25").hits
        assert [h.path for h in hits] == ["notes/n1.md"]
    assert listings == []
    assert snapshot.unchanged_files(*args) == 3
    touched = vault / "notes/n2.md"  # a new mtime, the same bytes: nothing to parse, a new stat
    os.utime(touched, ns=(touched.stat().st_atime_ns, touched.stat().st_mtime_ns + 10**9))
    assert snapshot.unchanged_files(*args) is None
    with Vault.open(vault) as v:
        assert v.index(embed=False, lexical=True).scan.touched == 1
    assert snapshot.unchanged_files(*args) == 3 and listings == []


def test_a_gitignore_edited_in_place_is_seen(indexed: Indexed) -> None:
    vault, args = indexed
    (vault / ".gitignore").write_text("notes/\n", encoding="utf-8")
    assert snapshot.unchanged_files(*args) is None


def test_a_new_note_is_seen_and_another_file_costs_one_walk(
    indexed: Indexed, listings: list[str]
) -> None:
    vault, args = indexed
    (vault / "notes/.n1.md.swp").write_bytes(b"an editor's swap file")  # not a note
    assert snapshot.unchanged_files(*args) == 3  # the folder moved: a walk finds the same notes
    assert listings
    kept = json.loads((vault / STATE_DIR / snapshot.FILE).read_text())
    assert [f for f in kept["folders"] if f[0] == "notes/"][0][1] is None  # changed just now
    write(vault, "notes/n9.md", "# Note 9\n\nnew\n")
    assert snapshot.unchanged_files(*args) is None


def test_a_folder_changed_as_it_is_walked_is_not_trusted(vault: Path) -> None:
    """A folder whose mtime is not yet in the past at the walk (a change in the same clock tick
    could keep it) is recorded untrusted: the next check walks."""
    write(vault, "a.md", "# A\n\nalpha\n")
    with Vault.open(vault, create=True, writes_state=True) as opened:
        later = time.time_ns() + AN_HOUR_NS
        os.utime(vault, ns=(later, later))
        opened.index(embed=False, lexical=True)
        s = opened.settings
    kept = json.loads((vault / STATE_DIR / snapshot.FILE).read_text())
    root = [f for f in kept["folders"] if f[0] == ""][0]
    assert root[1] is None and root[3] == ["a.md"]
    assert snapshot.unchanged_files(vault, s.include, s.exclude, s.max_file_bytes, False) == 1
    now = time.time_ns()
    assert settled(now - 10**9 - 1, now) and not settled(now - 10**6, now)


def test_a_file_time_past_2262_is_checked_without_a_walk(vault: Path, listings: list[str]) -> None:
    """A time that overflows a signed 64-bit count of nanoseconds is clamped by the check as by the
    walk: the check still finds nothing to do, and still names the one file edited in place."""
    for i in range(3):
        write(vault, f"notes/n{i}.md", f"# Note {i}\n\nlease {i}\n")
    os.utime(vault / "notes/n0.md", ns=(1 << 63, 1 << 63))
    with Vault.open(vault, create=True, writes_state=True) as opened:
        for folder in (vault / "notes", vault):
            age(folder)
        opened.index(embed=False, lexical=True)
        s = opened.settings
    args = (vault, s.include, s.exclude, s.max_file_bytes, False)
    listings.clear()
    assert snapshot.known_walk(*args) == 3
    (vault / "notes/n2.md").write_text("# Note 2\n\nrenewed\n", encoding="utf-8")
    walk = snapshot.known_walk(*args)
    assert isinstance(walk, snapshot.Walk) and walk.changed == ["notes/n2.md"]
    assert listings == []
