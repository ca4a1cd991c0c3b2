"""A `k0maru scan` with nothing to do is answered before the command line's parser is built
(`cli.index_cmds.quick_scan`, #62): the same report as the full scan's, for the flags it takes; any
other word, and any doubt about the vault, goes to the parser and the full scan, which says what is
wrong in one line. In-process, real files."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from k0maru.cli.index_cmds import _simple_scan_flags
from k0maru.cli.main import main
from k0maru.index import snapshot
from k0maru.layout import STATE_DIR
from tests.helpers import write


def scanned(capsys: pytest.CaptureFixture[str], *flags: str) -> tuple[int, str, str]:
    """A scan's exit status, stdout and stderr."""
    status = main(["scan", *flags])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def indexed(vault: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A vault of three notes, scanned twice: the second scan leaves its index files trusted."""
    for i in range(3):
        write(vault, f"notes/n{i}.md", f"# Note {i}\n\nbody {i}\n")
    for _ in range(2):
        assert scanned(capsys, "--vault", str(vault), "--no-embed")[0] == 0
    return vault


@pytest.mark.parametrize(
    ("words", "given"),
    [
        ([], {"--vault": None, "--json": False, "--no-embed": False}),
        (["--vault", "v", "--json"], {"--vault": "v", "--json": True, "--no-embed": False}),
        (["--vault=v", "--no-embed"], {"--vault": "v", "--json": False, "--no-embed": True}),
        (["--vault", "a", "--vault", "b"], {"--vault": "b", "--json": False, "--no-embed": False}),
        (["--full"], None),
        (["--vault"], None),  # argparse's "expected one argument"
        (["--vault", "--json"], None),
        (["--json=1"], None),
        (["--include", "*.md"], None),
        (["notes"], None),
        (["--help"], None),
    ],
)
def test_only_the_plain_flags_are_taken(words: list[str], given: dict[str, object] | None) -> None:
    assert _simple_scan_flags(words) == given


def test_the_quick_answer_is_the_full_scans(
    indexed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = scanned(capsys, f"--vault={indexed}", "--no-embed", "--json")
    quick = json.loads(out)
    assert status == 0 and err == "" and quick["walk_only"] and quick["unchanged"] == 3
    # --full takes the parser and the whole scan: the same counts, read from the notes
    status, out, _ = scanned(capsys, "--vault", str(indexed), "--no-embed", "--full", "--json")
    full = json.loads(out)
    assert status == 0 and not full["walk_only"] and full.keys() == quick.keys()
    counts = ("added", "modified", "unchanged", "removed", "skipped", "symlinks", "embedded")
    assert [full[k] for k in counts] == [quick[k] for k in counts] == [0, 0, 3, 0, 0, 0, 0]
    status, out, err = scanned(capsys, "--vault", str(indexed), "--no-embed")
    assert status == 0 and err == f"k0maru: vault {indexed}\n"
    assert out.startswith("added 0  modified 0  unchanged 3  removed 0  skipped 0  embedded 0  in ")


def test_a_vault_from_the_environment_is_taken(
    indexed: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("K0MARU_VAULT", str(indexed))
    status, out, _ = scanned(capsys, "--no-embed", "--json")
    assert status == 0 and json.loads(out)["walk_only"]


def test_an_edit_takes_the_full_scan(indexed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(indexed, "notes/n1.md", "# Note 1\n\nbody one, edited\n")
    status, out, _ = scanned(capsys, "--vault", str(indexed), "--no-embed", "--json")
    report = json.loads(out)
    assert status == 0 and not report["walk_only"] and report["modified"] == 1


def test_a_linked_state_folder_is_refused_in_one_line(
    indexed: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The quick path never reads through a `.k0maru` that is a link: the full path refuses it."""
    elsewhere = tmp_path / "elsewhere"
    os.rename(indexed / STATE_DIR, elsewhere)
    os.symlink(elsewhere, indexed / STATE_DIR)
    status, out, err = scanned(capsys, "--vault", str(indexed), "--no-embed")
    assert status == 2 and out == ""
    assert err.startswith("k0maru: error: ") and "symbolic link" in err and err.count("\n") == 1


def test_a_missing_vault_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = scanned(capsys, "--vault", str(tmp_path / "none"))
    assert status == 2 and out == "" and err.count("\n") == 1 and "is not a directory" in err


def test_the_snapshot_check_takes_a_string_or_a_path(indexed: Path) -> None:
    args: tuple[list[str], list[str], int, bool] = (["**/*.md"], [], 2_000_000, False)
    assert snapshot.known_walk(indexed, *args) == snapshot.known_walk(str(indexed), *args) == 3
