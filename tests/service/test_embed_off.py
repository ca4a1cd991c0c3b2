"""With `embed = false` no chunk waits for a vector (#44): `status` and the backlog that `hooks
status` reads count none, so neither says the index is behind; a hybrid search is a BM25 one, named
so, with no warning about vectors to wait for, and `--mode vector` is refused in one line (#60).
Real index, real CLI handlers in-process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from k0maru.cli.main import main
from k0maru.service.operations import Service
from tests.helpers import write


@pytest.fixture()
def lexical_only(vault: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("K0MARU_EMBED", "false")
    write(vault, "a.md", "# Alpha\n\nThe writer retries on SQLITE_BUSY.\n")
    write(vault, "b.md", "# Beta\n\nBackups run nightly.\n")
    assert main(["scan", "--json", "--vault", str(vault)]) == 0
    return vault


def test_status_says_no_chunk_waits_for_vectors(
    lexical_only: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["status", "--json", "--vault", str(lexical_only)]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["chunks"] == 2 and info["chunks_embedded"] == 0
    assert info["chunks_pending_embedding"] == 0
    assert main(["status", "--vault", str(lexical_only)]) == 0
    assert "wait for vectors" not in capsys.readouterr().out


def test_the_backlog_hooks_status_reads_is_empty(lexical_only: Path) -> None:
    with Service.open(lexical_only) as service:
        backlog = service.backlog()
    assert backlog.pending == {"new": 0, "changed": 0, "removed": 0}
    assert backlog.chunks_pending_embedding == 0


def test_with_embedding_on_the_same_chunks_wait(
    lexical_only: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("K0MARU_EMBED", "true")
    with Service.open(lexical_only) as service:
        assert service.backlog().chunks_pending_embedding == 2
        assert service.status().chunks_pending_embedding == 2


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
