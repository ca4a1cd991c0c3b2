"""Each naming heuristic and folder clue on its own, from a handful of file names (issue #56): a
rule can be judged here without the eval's repositories."""

from __future__ import annotations

import pytest

from k0maru.notes.conventions import (
    _dated_clue,
    _frontmatter_clue,
    _numbered_clue,
    _template_clue,
)
from k0maru.notes.naming import (
    Naming,
    dated_naming,
    empty_folder_naming,
    naming_of,
    numbered_naming,
    prefixed_naming,
    slug_style_of,
    undated_naming,
)


def test_prefixed_naming_takes_the_widest_number() -> None:
    stems = ["ADR-7-cache", "ADR-0012-queue", "0003-old"]
    assert prefixed_naming("adr", stems) == Naming("adr-prefixed", "2 files named adr-NNN-title", 4)


def test_prefixed_naming_yields_to_as_many_bare_numbers() -> None:
    assert prefixed_naming("adr", ["ADR-7-cache", "0003-old"]) is None


def test_prefixed_naming_is_for_adrs_only() -> None:
    assert prefixed_naming("log", ["ADR-7-cache", "ADR-8-queue"]) is None


def test_numbered_naming_reads_bare_numbers_not_dates() -> None:
    assert numbered_naming("adr", ["0001-record", "00002-more", "2024-05-01-x"]) == Naming(
        "adr-number", "2 files named NNNN-title", 5
    )


def test_numbered_naming_of_an_empty_adr_folder_keeps_the_default_width() -> None:
    assert numbered_naming("adr", []) == Naming("adr-number")


def test_numbered_naming_says_nothing_of_unnumbered_adrs() -> None:
    assert numbered_naming("adr", ["use-postgres"]) is None


def test_dated_naming_needs_half_the_names_dated() -> None:
    assert dated_naming(["2024-05-01-a", "b"]) == Naming(
        "date-slug", "1/2 files start with YYYY-MM-DD"
    )
    assert dated_naming(["2024-05-01-a", "b", "c"]) is None
    assert dated_naming([]) is None


def test_undated_naming_counts_the_names_without_a_date() -> None:
    assert undated_naming(["2024-05-01-a", "b", "c"]) == Naming(
        "slug", "2/3 files without a date prefix"
    )
    assert undated_naming([]) is None


@pytest.mark.parametrize(
    ("kind", "naming"),
    [("log", "date-slug"), ("decision", "date-slug"), ("card", "slug"), ("skill", "slug")],
)
def test_empty_folder_naming_dates_logs_and_decisions(kind: str, naming: str) -> None:
    assert empty_folder_naming(kind) == Naming(naming)


@pytest.mark.parametrize(
    ("kind", "stems", "naming"),
    [
        ("adr", ["adr-001-a", "adr-002-b"], "adr-prefixed"),
        ("adr", ["0001-a", "0002-b"], "adr-number"),
        ("adr", [], "adr-number"),
        ("adr", ["2024-05-01-a"], "date-slug"),
        ("adr", ["use-postgres"], "slug"),
        ("log", ["0001-a", "0002-b"], "slug"),  # a number names no log
        ("log", [], "date-slug"),
        ("card", [], "slug"),
    ],
)
def test_naming_of_takes_the_first_heuristic_that_speaks(
    kind: str, stems: list[str], naming: str
) -> None:
    assert naming_of(kind, stems).value == naming


@pytest.mark.parametrize(
    ("stems", "style"),
    [
        (["2024-05-01 Cache Layout", "2024-05-02 Queue Depth"], "title"),
        (["0001_cache_layout", "0002_queue_depth"], "snake"),
        (["0001-cache-layout", "0002-queue_depth"], None),  # kebab-case stays
        (["adr-1_x-y", "adr-2_z-w"], None),  # a dash among the words: not snake_case
        (["one", "two words", "three"], None),  # spaces in fewer than half
        ([], None),
    ],
)
def test_slug_style_of(stems: list[str], style: str | None) -> None:
    found = slug_style_of(stems)
    assert (found.value if found else None) == style


def test_slug_style_of_gives_its_evidence() -> None:
    assert slug_style_of(["a b", "c d", "e"]) == Naming(
        "title", "2/3 names use spaces (Title Case)"
    )


def test_numbered_clue_needs_two_numbered_files_and_half() -> None:
    assert _numbered_clue("adr", ["0001-a.md", "ADR-2-b.md", "c.md"]) == (2, "2 numbered files")
    assert _numbered_clue("adr", ["0001-a.md", "b.md", "c.md"]) is None
    assert _numbered_clue("log", ["0001-a.md", "0002-b.md"]) is None


def test_dated_clue_counts_dated_and_daily_files_outside_decision_folders() -> None:
    names = ["2024-05-01-a.md", "2024-05-02.md", "c.md"]
    assert _dated_clue("log", names, {"journal"}, False) == (1, "2 dated files")
    assert _dated_clue("log", names, {"decisions"}, False) is None
    assert _dated_clue("card", names, {"journal"}, False) is None
    days = ["CG-01-14.md", "CG-01-28.md", "notes.md"]  # a month and day count in a year folder
    assert _dated_clue("log", days, {"meetings"}, True) == (1, "2 dated files")
    assert _dated_clue("log", days, {"meetings"}, False) is None
    lead = ["summary-2026-01-15.md", "summary-2026-02-05.md"]
    assert _dated_clue("log", lead, {"notes"}, False) == (1, "2 dated files")


def test_frontmatter_clue_weighs_the_kinds_share() -> None:
    assert _frontmatter_clue("card", {"card": 3, "log": 1}) == (1.5, "3 notes with kind: card")
    assert _frontmatter_clue("adr", {"card": 3}) is None


def test_template_clue_wants_a_template_in_a_decision_folder() -> None:
    names = ["0001-a.md", "template.md"]
    assert _template_clue("adr", names, {"adr"}) == (2, "a record template beside the records")
    assert _template_clue("adr", names, {"notes"}) is None
    assert _template_clue("card", names, {"adr"}) is None


def test_infer_naming_assembles_the_rule_once() -> None:
    from k0maru.notes.conventions import ConventionSniffer, KindRule

    rule = KindRule("adr", "docs/adr", "")
    ConventionSniffer._infer_naming(rule, ["README.md", "0001-use_x.md", "0002-drop_y.md"])
    assert (rule.naming, rule.number_width, rule.slug_style) == ("adr-number", 4, "snake")
    assert rule.evidence == ["2 files named NNNN-title", "2/2 names use snake_case"]


def test_infer_naming_keeps_what_a_rule_set() -> None:
    from k0maru.notes.conventions import ConventionSniffer, KindRule

    rule = KindRule("adr", "docs/adr", "slug", slug_style="title", source="rules")
    ConventionSniffer._infer_naming(rule, ["0001_use_x.md", "0002_drop_y.md"])
    assert (rule.naming, rule.number_width, rule.slug_style) == ("slug", 4, "title")
    assert rule.evidence == []


@pytest.mark.parametrize(
    ("key", "value", "placeholder"),
    [
        ("title", "Use X", "title"),
        ("date", "someday", "date"),
        ("created", "2024-05-01", "date"),  # a date by its value
        ("Status", "accepted", None),  # keys come lower-cased
        ("status", "accepted", "status"),
        ("estado", "aceptado", "status"),
        ("tags", "adr", None),
    ],
)
def test_a_frontmatter_value_stands_for_a_placeholder(
    key: str, value: str, placeholder: str | None
) -> None:
    from k0maru.notes.template import _placeholder

    assert _placeholder(key, value) == placeholder


def test_template_sections_are_kept_where_half_the_records_give_them() -> None:
    from k0maru.notes.template import _kept_sections

    orders = [("Context", "Decision"), ("Context",), ("Decision", "Consequences")]
    titles = ["Context", "Decision", "Consequences"]
    assert _kept_sections(titles, orders) == ["Context", "Decision"]
    assert _kept_sections(titles, []) == titles  # no record yet: the template's all
