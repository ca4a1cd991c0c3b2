"""Hypothesis over the whole scan (#32 item 1): vaults of hostile notes (tests/strategies.py) go
through the real scanner into real SQLite, twice (a first scan, then an edit). No note may stop the
scan, lose another note or leave frontmatter the index cannot read back; every warning is one line
naming its file and, for refused frontmatter, the line. Slow tier, fixed budget."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from k0maru.index.scan_result import ScanResult
from k0maru.index.store import Store
from tests.helpers import scan, write
from tests.strategies import notes

pytestmark = pytest.mark.slow


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(notes(), min_size=1, max_size=4), notes())
def test_no_note_stops_the_scan(texts: list[str], edit: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        names = [f"n{i}.md" for i in range(len(texts))]
        for name, text in zip(names, texts, strict=True):
            write(root, name, text)
        write(root, "good.md", "---\ntitle: Good one\ntags: [ok]\n---\nplain words\n")
        _check(root, scan(root), len(texts) + 1)
        write(root, names[0], edit + "\n\nedited")
        _check(root, scan(root), 0)


def _check(root: Path, result: ScanResult, added: int) -> None:
    assert result.added == added and result.skipped == 0
    for warning in result.warnings:
        assert "\n" not in warning and warning.split(":", 1)[0].endswith(".md")
        if "indexed without frontmatter" in warning:
            assert " at line " in warning
    with Store.open(root) as store:
        assert store.counts()["documents"] == len(list(root.glob("*.md")))
        good = store.document_by_path("good.md")
        assert good is not None and good.title == "Good one"
        for (stored,) in store.conn.execute("SELECT frontmatter FROM documents"):
            assert isinstance(json.loads(stored), dict)
