"""A hit whose note says it is superseded says so, in every front end, and by what: the record
among the hits that supersedes it (ranked above it), else what the note itself names."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from k0maru.mcp.render import recall_text
from k0maru.service.operations import Service
from tests.helpers import write


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Service]:
    write(
        tmp_path,
        "docs/adr/0003-retry.md",
        '---\ntitle: "ADR 0003: Retry bank calls"\nstatus: superseded\n'
        'superseded_by: "ADR 0001"\n---\n# ADR 0003: Retry bank calls\n\n'
        "Retry bank API calls five times with backoff.\n",
    )
    write(tmp_path, "docs/adr/0004-pool.md", "# ADR 0004: Pool\n\nRun bank API calls in a pool.\n")
    with Service.open(str(tmp_path)) as svc:
        yield svc


def test_a_superseded_hit_says_what_it_names(service: Service) -> None:
    hits = service.recall("retry bank API calls", mode="bm25").hits
    by_path = {h.path: h for h in hits}
    assert by_path["docs/adr/0003-retry.md"].superseded_by == "ADR 0001"
    assert by_path["docs/adr/0004-pool.md"].superseded_by is None
    payload = service.recall("retry bank API calls", mode="bm25").payload()
    assert [h.get("superseded_by") for h in payload["hits"]].count("ADR 0001") == 1
    assert sum("superseded_by" in h for h in payload["hits"]) == 1  # unsent where not superseded
    text = recall_text(service.recall("retry bank API calls", mode="bm25"))
    assert "   superseded by ADR 0001" in text
