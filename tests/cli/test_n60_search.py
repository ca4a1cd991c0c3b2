"""A newcomer's findings on search (#60, n): `--explain` names the cosine floor, a `--min-score`
that leaves out every hit says so with the best score and the scale, and a superseded hit names
what replaces it by path wherever that ranks."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from k0maru.cli.main import main
from k0maru.mcp.render import recall_text
from k0maru.service.operations import Service
from tests.helpers import write


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_explain_names_the_cosine_floor(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "search", "--vault", str(demo), "--explain", "nightly backup locks")
    assert code == 0
    assert "floor = cosine 0.2 (min_cosine): a vector hit below it adds nothing" in out.splitlines()
    code, out, _ = run(
        capsys, "search", "--vault", str(demo), "--explain", "--json", "nightly backup locks"
    )
    assert json.loads(out)["cosine_floor"] == 0.2
    code, out, _ = run(
        capsys, "search", "--vault", str(demo), "--explain", "--mode", "bm25", "nightly backup"
    )
    assert "floor =" not in out  # BM25 alone has no cosine floor
    with Service.open(str(demo)) as svc:
        text = recall_text(svc.recall("nightly backup locks", explain=True))
    assert "cosine floor 0.2 (min_cosine: a vector hit below adds nothing)" in text.splitlines()[0]


@pytest.fixture
def notes(vault: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("K0MARU_EMBED", "false")
    write(vault, "a.md", "# Alpha\n\nThe nightly backup holds the write lock.\n")
    write(vault, "b.md", "# Beta\n\nThe backup runs at night.\n")
    return vault


def test_a_min_score_above_every_hit_says_so_with_the_best_and_the_scale(
    notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Was: `no results` and nothing else, for a floor no score could reach."""
    argv = ("search", "--vault", str(notes), "--mode", "bm25", "nightly backup")
    code, out, err = run(capsys, *argv, "--min-score", "2")
    assert code == 0 and out == "" and "Traceback" not in err
    said = [line for line in err.splitlines() if "min score" in line]
    assert said == [
        "k0maru: warning: min score 2 left out all 2 hit(s), the best scoring 1.000: bm25 "
        "scores run from 0 to 1, relative to the best hit"
    ]
    code, out, err = run(capsys, *argv, "--min-score", "0.5")  # some kept: nothing to say
    assert code == 0 and "min score" not in err and "Alpha" in out


@pytest.fixture
def adrs(tmp_path: Path) -> Iterator[Service]:
    write(
        tmp_path,
        "docs/adr/0001-retry.md",
        "# ADR 1: Retry bank calls\n\nStatus: superseded\n\nSuperseded by [[0002-pool]]\n\n"
        "Retry bank API calls five times with backoff. Retry, retry.\n",
    )
    write(
        tmp_path,
        "docs/adr/0002-pool.md",
        "# ADR 2: Pool bank calls\n\nStatus: accepted\n\nSupersedes [[0001-retry]]\n\n"
        "Run bank API calls in a pool. Pool, pool.\n",
    )
    write(
        tmp_path,
        "docs/adr/0003-queue.md",
        "# ADR 3: Queue bank calls\n\nStatus: superseded\n\n"
        "Superseded by: ADR 2: Pool bank calls\n\nQueue bank API calls. Queue, queue.\n",
    )
    with Service.open(str(tmp_path), settings={"embed": False}) as svc:
        yield svc


@pytest.mark.parametrize("query", ["retry bank calls", "pool bank calls", "queue bank calls"])
def test_a_superseded_hit_names_its_successor_by_path_wherever_it_ranks(
    adrs: Service, query: str
) -> None:
    """Was: `superseded by 0002-pool` when the successor ranked above the hit, `by
    docs/adr/0002-pool.md` when below; and a title in `Superseded by` stayed a title."""
    result = adrs.recall(query, mode="bm25")
    by = {h.path: h.superseded_by for h in result.hits}
    assert by["docs/adr/0001-retry.md"] == "docs/adr/0002-pool.md", by
    assert by["docs/adr/0003-queue.md"] == "docs/adr/0002-pool.md", by
    assert by["docs/adr/0002-pool.md"] is None
    assert "superseded by docs/adr/0002-pool.md" in recall_text(result)
    sent = result.payload()["hits"]  # the JSON of the CLI, MCP and console names it alike
    assert {h.get("superseded_by") for h in sent} == {None, "docs/adr/0002-pool.md"}
