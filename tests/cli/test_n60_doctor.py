"""A newcomer's findings (#60, n): `doctor` says chunks still wait for vectors instead of only
"sound", gives the fix a corrupt index gets from every other command, and `status` says what its
scan time leaves out and how the vectors stand."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from k0maru.cli.main import main
from k0maru.index.store import db_path
from k0maru.service import worker
from tests.helpers import write


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def lexical(vault: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Three notes indexed without vectors; embedding is on again afterwards."""
    for i in range(3):
        write(vault, f"n{i}.md", f"# Note {i}\n\nLease renewal {i} and the nightly backup.\n")
    monkeypatch.setenv("K0MARU_EMBED", "false")
    assert main(["scan", "--vault", str(vault), "--json"]) == 0
    monkeypatch.delenv("K0MARU_EMBED")
    return vault


def test_doctor_says_how_many_chunks_wait_for_vectors_and_what_embeds_them(
    lexical: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Was: "sound" alone while every chunk still waited for its vector."""
    with worker.held(lexical) as mine:  # a worker is on them: none is started from the test
        assert mine
        code, out, err = run(capsys, "doctor", "--vault", str(lexical))
        assert code == 0, err
        assert "pending    3 chunk(s) wait for vectors: the worker is embedding them" in out
        code, out, _ = run(capsys, "doctor", "--json", "--vault", str(lexical))
        assert json.loads(out) == {"sound": True, "chunks_pending_embedding": 3}
        _, status, _ = run(capsys, "status", "--vault", str(lexical))
    # status words the same state the same way
    assert "embedding  3 chunk(s) wait for vectors: the worker is embedding them" in status


def test_doctor_on_a_corrupt_index_advises_what_search_advises(
    vault: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: search said `k0maru scan --rebuild`, doctor `k0maru doctor --fix`, for one file."""
    monkeypatch.setenv("K0MARU_EMBED", "false")
    for i in range(40):
        write(vault, f"n{i}.md", f"# Note {i}\n\n" + f"words of note {i} " * 200 + "\n")
    assert main(["scan", "--vault", str(vault), "--json"]) == 0
    path = db_path(vault)
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page = conn.execute("PRAGMA page_size").fetchone()[0]
    data = bytearray(path.read_bytes())
    for at in range(2 * page, len(data), page):  # every page past the first two: garbled
        data[at : at + 64] = b"\xff" * 64
    path.write_bytes(bytes(data))
    code, _, searched = run(capsys, "search", "--vault", str(vault), "note")
    assert code == 4 and "index is corrupt" in searched
    code, _, doctored = run(capsys, "doctor", "--vault", str(vault))
    assert code == 1 and "Traceback" not in doctored
    advice = "run `k0maru scan --rebuild` (your notes are untouched)"
    assert advice in searched and advice in doctored
    assert "doctor --fix" not in doctored


def test_status_says_its_scan_time_leaves_out_the_embedding(
    lexical: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: `last scan (2.1 ms ...)` beside a scan that had said 5 s (the vectors after it)."""
    monkeypatch.setenv("K0MARU_EMBED", "false")
    _, out, _ = run(capsys, "status", "--vault", str(lexical))
    lines = {line[:10].strip(): line[11:] for line in out.splitlines()}
    assert "indexing, without the embedding after it; +3 ~0 -0)" in lines["last scan"]
    assert "embedding" not in lines  # embedding off: the model line says so


def test_status_says_how_the_vectors_stand(
    lexical: Path, demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Was: nothing on the vectors once none was pending, beside the scan's time alone."""
    _, out, _ = run(capsys, "status", "--vault", str(lexical))
    assert "embedding  3 chunk(s) wait for vectors: no worker runs; `k0maru scan` embeds them" in (
        out
    )
    _, out, _ = run(capsys, "status", "--vault", str(demo))
    chunks = json.loads(run(capsys, "status", "--json", "--vault", str(demo))[1])["chunks"]
    assert f"embedding  all {chunks:,} chunks embedded" in out.splitlines()
