"""Inputs that once stopped or hung a scan (#61 item 1): a file name that is not UTF-8, file times
far in the past or future (past 2262 a count of nanoseconds overflows 64 bits), a `.gitignore` line
that is a lone backslash, and a folder of thousands of notes (time and memory grow linearly; the
slow test takes 20,000)."""

from __future__ import annotations

import os
import time
import tracemalloc
from pathlib import Path

import pytest

from k0maru.config import load_settings
from k0maru.fsutil import INT64_MAX
from k0maru.index import snapshot
from k0maru.index.walker import VaultWalker
from tests.helpers import scan, write

FAR = 1 << 63  # ns: 2262-04-11, one past the largest signed 64-bit integer


def test_a_file_name_that_is_not_utf8_is_skipped_with_its_name_escaped(vault: Path) -> None:
    write(vault, "good.md", "# Good\n\nhello\n")
    (vault / os.fsdecode(b"bad\xff name.md")).write_bytes(b"# Bad\n\nhello\n")
    (vault / os.fsdecode(b"dir\xfe")).mkdir()
    write(vault, os.fsdecode(b"dir\xfe") + "/inner.md", "# Inner\n")
    result = scan(vault)
    assert (result.added, result.skipped) == (1, 2)
    assert any("bad\\xff name.md" in w and "not valid UTF-8" in w for w in result.warnings)
    assert any("dir\\xfe/" in w for w in result.warnings)
    assert all(w.encode("utf-8") for w in result.warnings)  # printable, storable
    assert scan(vault).unchanged == 1


@pytest.mark.parametrize(
    "ns", [0, -(10**18), 4_102_444_800 * 10**9, FAR, 15_032_385_535 * 10**9], ids=str
)
def test_any_file_time_is_indexed(vault: Path, ns: int) -> None:
    note = write(vault, "n.md", "# N\n\nbody\n")
    os.utime(note, ns=(ns, ns))
    result = scan(vault)
    assert (result.added, result.skipped) == (1, 0)
    assert all(-(1 << 63) <= n <= INT64_MAX for n in result.signatures)
    again = scan(vault)
    assert (again.added, again.modified, again.unchanged) == (0, 0, 1)
    settings = load_settings(vault, embed=False)
    key = (settings.include, settings.exclude, settings.max_file_bytes)
    assert again.walked is not None and again.corpus_version is not None
    snapshot.save(
        vault,
        again.walked,
        again.folders,
        again.corpus_version,
        snapshot.scan_key(*key),
        again.signatures,
    )
    assert snapshot.known_walk(vault, *key, False) == 1  # the snapshot check takes any time too


def test_a_lone_backslash_in_gitignore_is_left_out_as_git_does(vault: Path) -> None:
    write(vault, ".gitignore", "\\\ndrafts/*.md\nfoo\\\n")
    write(vault, "a.md", "# A\n")
    write(vault, "drafts/b.md", "# B\n")
    result = scan(vault)
    assert (result.added, result.skipped) == (1, 0)
    assert [e.rel for e in VaultWalker(vault, ["**/*.md"], []).walk_paths(["drafts/b.md"])] == []


def _notes(folder: Path, count: int) -> None:
    folder.mkdir(parents=True)
    for i in range(count):
        (folder / f"n{i:06d}.md").write_text(f"# Note {i}\n\nbody {i} [[n{(i * 7) % count:06d}]]\n")


def _walk_cost(root: Path) -> tuple[float, int]:
    """(seconds, peak bytes allocated) of one whole walk of `root`."""
    tracemalloc.start()
    t0 = time.perf_counter()
    files = sum(1 for _ in VaultWalker(root, ["**/*.md"], []).walk())
    seconds = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert files > 0
    return seconds, peak


def test_a_walk_of_one_big_folder_grows_linearly(tmp_path: Path) -> None:
    """1,000 then 5,000 notes in one folder: 5 times the notes cost at most about 5 times the time
    and memory (with room for noise), not 25."""
    small, big = tmp_path / "small", tmp_path / "big"
    _notes(small / "notes", 1000)
    _notes(big / "notes", 5000)
    _walk_cost(small)  # warm the imports
    (t_small, m_small), (t_big, m_big) = _walk_cost(small), _walk_cost(big)
    assert m_big < 7 * m_small, (m_small, m_big)
    assert m_big < 5000 * 1024  # about a kilobyte a file at most
    assert t_big < 12 * t_small + 0.5, (t_small, t_big)


def test_a_scan_of_one_big_folder_completes(tmp_path: Path) -> None:
    _notes(tmp_path / "v" / "notes", 5000)
    t0 = time.perf_counter()
    result = scan(tmp_path / "v")
    assert result.added == 5000
    assert time.perf_counter() - t0 < 120


@pytest.mark.slow
def test_twenty_thousand_notes_in_one_folder(tmp_path: Path) -> None:
    _notes(tmp_path / "v" / "notes", 20_000)
    t0 = time.perf_counter()
    assert scan(tmp_path / "v").added == 20_000
    assert time.perf_counter() - t0 < 300
    assert scan(tmp_path / "v").unchanged == 20_000
