"""The seed's promises on vaults written the way real ones are (#39, third round): the same note
flushed again is up to date whatever the day, a new text under the same title is a new file (the
next number for a numbered log, `-vN` otherwise), links are written as the records write them, and a
commit trailer's own sections are not duplicated."""

from datetime import date
from pathlib import Path

import pytest

from k0maru.notes.flush import FlushEngine
from tests.helpers import write

JULY, AUGUST = date(2026, 7, 20), date(2026, 8, 1)
BODY = "## Context\n\nWe need X.\n\n## Decision\n\nUse X.\n"


def test_a_numbered_record_is_up_to_date_when_the_usual_status_moves(vault: Path) -> None:
    """The note just written joins the recent records a first status is learnt from; flushed again,
    the status it would start with may differ, and it is still the same note."""
    statuses = ["Accepted", "Pending", "Pending", "Pending", "Pending", "Accepted", "Accepted"]
    for n, status in enumerate(["Accepted", *statuses, "Accepted"], start=1):
        write(
            vault,
            f"doc/adr/{n:04d}-r{n}.md",
            f"# {n}. R{n}\n\nDate: 2020-01-01\n\n## Status\n\n{status}\n\n{BODY}",
        )
    first = FlushEngine(vault).flush("adr", "Use X", BODY, when=JULY)
    again = FlushEngine(vault).flush("adr", "Use X", BODY, when=AUGUST)
    assert first.path == "doc/adr/0010-use-x.md"
    assert (again.outcome, again.path) == ("up_to_date", first.path)
    other = FlushEngine(vault).flush("adr", "Use X", BODY + "\nMore.\n", when=JULY)
    assert (other.outcome, other.path) == ("created", "doc/adr/0011-use-x.md")


def test_a_dated_record_flushed_on_another_day_is_up_to_date(vault: Path) -> None:
    for day, slug in (("20240101", "use-a"), ("20240102", "use-b")):
        write(vault, f"docs/adr/{day}-{slug}.md", f"# {slug}\n\n- Status: accepted\n\n{BODY}")
    first = FlushEngine(vault).flush("adr", "Use X", BODY, when=JULY)
    assert first.path == "docs/adr/20260720-use-x.md"
    again = FlushEngine(vault).flush("adr", "Use X", BODY, when=AUGUST)
    assert (again.outcome, again.path) == ("up_to_date", first.path)
    other = FlushEngine(vault).flush("adr", "Use X", BODY + "\nMore.\n", when=JULY)
    assert (other.outcome, other.path) == ("versioned", "docs/adr/20260720-use-x-v2.md")


def test_a_daily_note_of_another_day_is_that_days_note(vault: Path) -> None:
    for day in ("2026-07-18", "2026-07-19"):
        write(vault, f"journal/{day}.md", f"# {day}\n\n- did things\n")
    first = FlushEngine(vault).flush("log", "Today", "- did X\n", when=JULY)
    later = FlushEngine(vault).flush("log", "Today", "- did X\n", when=AUGUST)
    assert (first.path, later.path) == ("journal/2026-07-20.md", "journal/2026-08-01.md")


def test_a_markdown_link_to_a_note_elsewhere_is_relative_to_the_new_note(vault: Path) -> None:
    """Records that link `[guide](../guide/setup.md)` get links a repository renders: the related
    note's path relative to the new record's folder, whichever way the note was named."""
    from k0maru.notes.flush import flush_indexed
    from k0maru.wiring.vault import Vault

    for n in (1, 2):
        write(
            vault,
            f"doc/adr/000{n}-r{n}.md",
            f"# {n}. R{n}\n\n## Context\n\nSee [R1](0001-r1.md), [guide](../guide/setup.md).\n",
        )
    write(vault, "doc/guide/setup.md", "# Setup guide\n\ntext\n")
    index = Vault.open(vault)
    index.index()
    related = ["Setup guide", "0002-r2", "doc/guide/setup"]
    try:
        note = flush_indexed(index, "adr", "Use X", BODY, [], related, JULY)
    finally:
        index.close()
    text = (vault / note.path).read_text()
    assert "- [Setup guide](../guide/setup.md)\n- [0002-r2](0002-r2.md)\n" in text
    assert "- [setup](../guide/setup.md)\n" in text


MADR = (
    "# {t}\n\n## Context and Problem Statement\n\nc\n\n## Decision Drivers\n\n* d\n\n"
    "## Considered Options\n\n* o\n\n## Decision Outcome\n\nChosen option: o\n"
)


def commit(root: Path, message: str) -> None:
    import subprocess

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)

    if not (root / ".git").exists():
        git("init", "-q")
    git("add", "-A")
    git("-c", "user.name=A", "-c", "user.email=a@x", "commit", "-q", "--allow-empty", "-m", message)


@pytest.mark.slow
@pytest.mark.parametrize(
    "body",
    [
        "We need X.",
        "## Context and Problem Statement\n\nWe need X.\n\n## Decision Outcome\n\nUse X.",
        "## Context and Problem Statement\n\nWe need X.",
    ],
)
def test_a_commit_trailer_fills_the_records_own_sections_once(vault: Path, body: str) -> None:
    """In a MADR folder the commit's context and decision go under `Context and Problem Statement`
    and `Decision Outcome`, never beside them as a second `## Context` / `## Decision`."""
    from k0maru.notes.adr import adr_from_head

    for n in (1, 2):
        write(vault, f"docs/decisions/000{n}-d{n}.md", MADR.format(t=f"D{n}"))
    commit(vault, "start")
    commit(vault, f"Use X\n\n{body}\n\nADR: Use X\n")
    written = adr_from_head(vault)
    assert written is not None
    heads = [h for h in (vault / written["path"]).read_text().splitlines() if h.startswith("## ")]
    assert heads.count("## Context and Problem Statement") == 1
    assert heads.count("## Decision Outcome") == 1
    assert "## Context" not in heads and "## Decision" not in heads


def test_records_kept_as_readme_folders_are_numbered_and_flushed_again(vault: Path) -> None:
    """`rfcs/0001-x/README.md` records: the next number follows them, the same note again is up to
    date, a new text is the next number (it was `0001` again, then no free number at all)."""
    for n, slug in ((1, "use-a"), (2, "use-b")):
        write(vault, f"rfcs/000{n}-{slug}/README.md", f"# RFC-000{n} {slug}\n\n## Summary\n\ns\n")
    first = FlushEngine(vault).flush("adr", "Use X", "## Summary\n\nx\n", when=JULY)
    assert (first.outcome, first.path) == ("created", "rfcs/0003-use-x/README.md")
    again = FlushEngine(vault).flush("adr", "Use X", "## Summary\n\nx\n", when=AUGUST)
    assert (again.outcome, again.path) == ("up_to_date", first.path)
    other = FlushEngine(vault).flush("adr", "Use X", "## Summary\n\ny\n", when=JULY)
    assert (other.outcome, other.path) == ("created", "rfcs/0004-use-x/README.md")
