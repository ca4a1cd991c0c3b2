"""One note never stops indexing (#32 items 1, 2): frontmatter that PyYAML cannot build, that JSON
cannot hold, or that would expand without bound is left out of the index with one warning naming the
file and the line; the note's body and every other note are indexed. Real scanner, real SQLite."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from k0maru.index.markdown import split_frontmatter
from k0maru.index.store import Store
from tests.helpers import scan, write

BOMB = "\n".join(
    ["a: &a [x, x, x, x, x, x, x, x, x]"]
    + [f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]" for i in range(8)]
)
HOSTILE = {
    # (frontmatter, the line its warning must name)
    "impossible-date": ("title: T\ndate: 2026-02-30\n", 3),
    "self-alias": ("title: T\na: &a [*a]\n", 3),
    "self-alias-map": ("x: 1\nb: &b {c: *b}\n", 3),
    "impossible-date-yaml": ('title: "T: a colon"\ndate: 2026-02-30\n', 3),
    "alias-bomb": (BOMB + "\n", 5),
    "date-key": ("title: T\nnested:\n  2026-01-01: shipped\n", 4),
    "huge-int": ("title: T\nn: " + "1" * 5000 + "\n", 3),
    "bad-timezone": ("title: T\nwhen: 2026-01-01 10:00:00+99:00\n", 3),
    "deep-nesting": ("a: " + "[" * 100_000 + "]" * 100_000 + "\n", 2),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_frontmatter_is_left_out_with_one_line(vault: Path, case: str) -> None:
    head, line = HOSTILE[case]
    write(vault, "bad.md", f"---\n{head}---\n# Bad note\n\nbody words zebrafinch\n")
    write(vault, "good.md", "---\ntitle: Good\n---\n# Good\n\nother words\n")
    result = scan(vault)
    assert (result.added, result.skipped) == (2, 0)
    warnings = [w for w in result.warnings if w.startswith("bad.md:")]
    assert len(warnings) == 1 and "\n" not in warnings[0]
    assert f"at line {line}" in warnings[0] and "indexed without frontmatter" in warnings[0]
    with Store.open(vault) as store:
        bad = store.document_by_path("bad.md")
        assert bad is not None and bad.frontmatter == {} and "zebrafinch" in bad.body
        assert bad.title == "Bad note"
        assert store.document_by_path("good.md") is not None
        assert store.counts()["documents"] == 2


def test_alias_bomb_is_refused_quickly_and_small() -> None:
    tracemalloc.start()
    try:
        fm, _, error = split_frontmatter(f"---\n{BOMB}\n---\nbody\n")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * 2**20, f"{peak:,} bytes at the peak: the aliases were expanded"
    assert fm == {} and error is not None and "aliases expand to more than" in error


def test_bounded_aliases_and_plain_yaml_still_load() -> None:
    text = (
        "---\nbase: &base {owner: ana, tags: [x, y]}\nfirst: *base\nsecond:\n  <<: *base\n"
        "  extra: 1\ndate: 2026-02-28\nwhen: 2026-01-01 10:00:00+02:00\n---\nbody\n"
    )
    fm, body, error = split_frontmatter(text)
    assert error is None and body == "body\n"
    assert fm["first"] == {"owner": "ana", "tags": ["x", "y"]}
    assert fm["second"] == {"owner": "ana", "tags": ["x", "y"], "extra": 1}
    assert str(fm["date"]) == "2026-02-28"
