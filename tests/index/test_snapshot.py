"""A scan with nothing to do stops after its walk (index/snapshot.py), and every change still takes
the full scan: the real CLI in subprocesses over a real index."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from k0maru.index.store import Store
from tests.helpers import run_k0maru, write

pytestmark = pytest.mark.slow  # end-to-end: real processes (see CONTRIBUTING.md)


def scan(vault: Path, *flags: str) -> dict[str, Any]:
    r = run_k0maru("scan", "--vault", str(vault), "--json", *flags)
    assert r.returncode == 0, r.stderr
    report: dict[str, Any] = json.loads(r.stdout)
    return report


def scans_recorded(vault: Path) -> int:
    with Store.open(vault) as store:
        return int(store.conn.execute("SELECT count(*) FROM scans").fetchone()[0])


@pytest.fixture()
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "v"
    for i in range(6):
        write(
            root,
            f"notes/n{i}.md",
            f"# Note {i}\n\nSQLITE_BUSY and lease renewal, note {i}. [[Note {(i + 1) % 6}]]\n",
        )
    write(root, ".gitignore", "drafts/\n")
    write(root, "drafts/skip.md", "# Draft\n\nnot indexed\n")
    first = scan(root, "--no-embed")
    assert first["added"] == 6
    return root


def test_a_second_scan_with_nothing_to_do_only_walks(vault: Path) -> None:
    recorded = scans_recorded(vault)
    again = scan(vault, "--no-embed")
    assert again["unchanged"] == 6 and again["added"] == again["modified"] == again["removed"] == 0
    assert (
        again["walk_only"] and scans_recorded(vault) == recorded
    )  # the index was not opened for writing
    assert not scan(vault, "--no-embed", "--full")["walk_only"]


@pytest.mark.parametrize("change", ["edit", "add", "remove", "same size", "unignore"])
def test_every_change_to_the_files_takes_the_full_scan(vault: Path, change: str) -> None:
    note = vault / "notes" / "n2.md"
    if change == "edit":
        note.write_text(note.read_text() + "\nMore about leases.\n")
    elif change == "add":
        write(vault, "notes/new.md", "# New\n\nA new note.\n")
    elif change == "remove":
        note.unlink()
    elif change == "same size":  # the same length, a later mtime: the scan re-reads it
        note.write_text(note.read_text().replace("lease", "LEASE"))
        os.utime(note, ns=(note.stat().st_atime_ns, note.stat().st_mtime_ns + 10**9))
    else:
        (vault / ".gitignore").write_text("")
    recorded = scans_recorded(vault)
    report = scan(vault, "--no-embed")
    assert scans_recorded(vault) == recorded + 1
    expected = {
        "edit": ("modified", 1),
        "add": ("added", 1),
        "remove": ("removed", 1),
        "same size": ("modified", 1),
        "unignore": ("added", 1),
    }[change]
    assert report[expected[0]] == expected[1]
    assert scan(vault, "--no-embed")["unchanged"] == (
        5 if change == "remove" else 7 if change in ("add", "unignore") else 6
    )
    assert scans_recorded(vault) == recorded + 1  # and the scan after it has nothing to do again


def test_another_writer_or_other_settings_take_the_full_scan(vault: Path) -> None:
    r = run_k0maru(
        "flush",
        "--vault",
        str(vault),
        "--kind",
        "card",
        "--title",
        "Busy timeout",
        input="Set busy_timeout before the first write.\n",
    )
    assert r.returncode == 0, r.stderr
    assert scan(vault, "--no-embed")["unchanged"] == 7
    with Store.open(vault) as store:  # the index moved on while no file did
        store.bump_corpus_version()
    recorded = scans_recorded(vault)
    scan(vault, "--no-embed")
    assert scans_recorded(vault) == recorded + 1
    scan(vault, "--no-embed", "--include", "notes/**/*.md")  # other settings: the full scan
    assert scans_recorded(vault) == recorded + 2


def test_a_scan_that_embeds_does_not_stop_at_a_snapshot_taken_without_embedding(
    vault: Path,
) -> None:
    report = scan(
        vault
    )  # the snapshot was taken with --no-embed: the chunks still wait for vectors
    assert report["embedded"] >= 6
    recorded = scans_recorded(vault)
    assert scan(vault)["embedded"] == 0 and scans_recorded(vault) == recorded


def test_a_damaged_snapshot_only_costs_the_full_scan(vault: Path) -> None:
    (vault / ".k0maru" / "scan-snapshot.json").write_text("{not json")
    recorded = scans_recorded(vault)
    assert scan(vault, "--no-embed")["unchanged"] == 6 and scans_recorded(vault) == recorded + 1


def test_the_index_files_are_trusted_only_while_nothing_writes_to_them(vault: Path) -> None:
    snapshot = vault / ".k0maru" / "scan-snapshot.json"
    for _ in range(
        2
    ):  # the index read and found as left, its files' stat kept (the first read may add a log)
        assert scan(vault, "--no-embed")["walk_only"]
    kept = json.loads(snapshot.read_text())
    assert kept["index"][0] and kept["vectors"] is False
    assert scan(vault, "--no-embed")["walk_only"] and json.loads(snapshot.read_text()) == kept
    with Store.open(vault) as store:  # another writer: the files' stat moves with it
        store.bump_corpus_version()
    recorded = scans_recorded(vault)
    assert not scan(vault, "--no-embed")["walk_only"] and scans_recorded(vault) == recorded + 1
    assert scan(vault, "--no-embed")["walk_only"]
    assert (
        scan(vault)["embedded"] >= 6
    )  # trusted without vectors: a scan that embeds still asks for the backlog
