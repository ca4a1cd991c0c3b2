"""Bounded views of an offloaded log (offload/slices.py), in-process."""

from pathlib import Path

from k0maru.offload import slices


def test_grep_skips_the_first_matches_but_counts_them(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    log.write_text("".join(f"line {i}\n" for i in range(1, 11)))
    found, total = slices.grep(log, "line", context=1, max_matches=2, skip=3)
    assert total == 10
    assert found == [
        (3, "line 3", False),
        (4, "line 4", True),
        (5, "line 5", True),
    ]  # line 3, a skipped match, is context; line 6 is a match of the next page
