"""A note's date for --since/--until: its frontmatter's, else the date its file name starts with
(journals, daily notes), else its mtime; a window no note falls in is said plainly."""

import os
from pathlib import Path

from k0maru.index.markdown import name_date, note_kind
from k0maru.kinds import FOLDER_WORDS, OWN_KINDS
from k0maru.search.filters import Filters, parse_when
from k0maru.wiring.vault import Vault
from tests.helpers import write

OLD = 1_500_000_000  # 2017-07-14: every file's mtime, far from the dates the names give


def test_a_date_the_file_name_starts_with_counts_before_the_mtime(vault: Path) -> None:
    for rel in (
        "journals/2025_01_15.md",
        "daily/2025-01-16.md",
        "daily/20250117.md",
        "logs/2025-01-18-standup.md",
        "notes/release 2025-01-19.md",  # the date is not at the start: the mtime counts
    ):  # bodies apart, so that no two fold as copies
        os.utime(write(vault, rel, f"# Day\n\nshipped the gateway cache: {rel}\n"), (OLD, OLD))
    write(vault, "notes/dated.md", "---\ndate: 2024-03-01\n---\n# 2025-01-15 plan\n\ncache\n")
    window = Filters(since="2025-01-15", until="2025-01-18")
    with Vault.open(vault) as v:
        v.index()
        hits = v.recall.search("gateway cache", mode="bm25", limit=10, filters=window).hits
        empty = v.recall.search("cache", mode="bm25", filters=Filters(until="2010-12-31"))
    assert sorted(h.path for h in hits) == [
        "daily/2025-01-16.md",
        "daily/20250117.md",
        "journals/2025_01_15.md",
        "logs/2025-01-18-standup.md",
    ]
    assert empty.hits == [] and empty.warnings == ["no note is dated on or before 2010-12-31"]


def test_only_a_whole_valid_date_at_the_start_of_the_name() -> None:
    assert name_date("journals/2025_01_15.md") == parse_when("2025-01-15")
    assert name_date("a/2025.01.15 x.md") == parse_when("2025-01-15")
    for rel in ("2025-13-01.md", "202501151230.md", "2025-01_15.md", "x-2025-01-15.md", "1234.md"):
        assert name_date(rel) is None, rel


def test_the_index_names_kinds_by_the_folder_words_the_conventions_use() -> None:
    """One table (`kinds.py`): a folder the conventions would file a kind in gives that kind, but
    incidents and runbooks keep their own."""
    for kind, words in FOLDER_WORDS.items():
        for word in words - OWN_KINDS.keys():
            assert note_kind({}, f"docs/{word}/x.md") == kind, word
    for word in ("design", "designs", "rfcs", "proposals", "design-docs", "keps"):
        assert note_kind({}, f"docs/architecture/{word}/0001-x.md") == "adr", word
    assert note_kind({}, "ops/runbooks/restart.md") == "runbook"
    assert note_kind({}, "ops/10_incidents/2025-01-02.md") == "incident"
    assert note_kind({"type": "Spec"}, "design/x.md") == "spec"


def test_search_kind_adr_finds_the_records_of_a_design_folder(vault: Path) -> None:
    write(vault, "docs/architecture/design/workflow.md", "# Workflow state\n\nWe track state.\n")
    write(vault, "docs/guide.md", "# Guide\n\nHow to track state.\n")
    with Vault.open(vault) as v:
        v.index()
        hits = v.recall.search("track state", mode="bm25", filters=Filters(kind="adr")).hits
    assert [h.path for h in hits] == ["docs/architecture/design/workflow.md"]
