"""With `embed = false` (K0MARU_EMBED=false) no vector ever comes: a hybrid search is a BM25 one,
named so, with no warning about vectors to wait for, and `--mode vector` is refused in one line
(issue #60). Real index, the CLI in-process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from k0maru.cli.main import main
from tests.helpers import write


@pytest.fixture
def lexical_only(vault: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("K0MARU_EMBED", "false")
    write(vault, "a.md", "# Alpha\n\nThe writer retries on SQLITE_BUSY.\n")
    write(vault, "b.md", "# Beta\n\nBackups run nightly.\n")
    assert main(["scan", "--json", "--vault", str(vault)]) == 0
    return vault


def test_hybrid_is_bm25_named_so_without_a_warning(
    lexical_only: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["search", "--json", "--vault", str(lexical_only), "SQLITE_BUSY"]) == 0
    out, err = capsys.readouterr()
    answer = json.loads(out)
    assert answer["mode"] == "bm25" and answer["hits"][0]["path"] == "a.md"
    assert "warning" not in err and "vector" not in err


def test_vector_mode_is_refused_in_one_line(
    lexical_only: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    code = main(["search", "--mode", "vector", "--vault", str(lexical_only), "SQLITE_BUSY"])
    out, err = capsys.readouterr()
    errors = [line for line in err.splitlines() if "error" in line]
    assert code == 2 and out == ""
    assert errors == [
        "k0maru: error: embedding is off (embed = false, or K0MARU_EMBED=false): no vector "
        "search; use --mode bm25 or hybrid"
    ]
