"""Chunks carry their heading path and the file lines they span, so an answer can point into the
note."""

from pathlib import Path

from k0maru.index.markdown import chunk_note, parse_note
from k0maru.service.operations import Service
from tests.helpers import write

NOTE = """---
title: Lease renewal
tags: [leases]
---
# Lease renewal

Workers renew every 10 s.

## Failure modes

### Clock skew

A fast clock renews too late.
The scheduler's clock decides.

## Rollout
Ship behind a flag.
"""


def test_heading_paths_and_line_ranges_follow_the_file() -> None:
    note = parse_note("leases.md", NOTE)
    chunks = chunk_note(note.title, note.body, 1000, note.body_line)
    lines = NOTE.split("\n")
    got = [(c.section, c.line_start, c.line_end) for c in chunks]
    assert got == [
        ("", 5, 7),
        ("Failure modes", 9, 9),
        ("Failure modes > Clock skew", 11, 14),
        ("Rollout", 16, 17),
    ]
    for c in chunks:  # the range holds exactly the chunk's first and last lines
        assert lines[c.line_start - 1] == c.text.split("\n")[0]
        assert lines[c.line_end - 1] == c.text.split("\n")[-1]


def test_a_long_section_split_in_pieces_keeps_each_piece_s_lines() -> None:
    body = "## Big\n\n" + "\n\n".join(f"paragraph {i} " + "word " * 30 for i in range(12))
    chunks = chunk_note("T", body, 400)
    assert len(chunks) > 2 and all(c.section == "Big" for c in chunks)
    lines = body.split("\n")
    for c in chunks:
        assert lines[c.line_start - 1].strip() == c.text.split("\n")[0].strip()
    assert [c.line_start for c in chunks] == sorted({c.line_start for c in chunks})


def test_recall_answers_with_heading_path_and_lines(vault: Path) -> None:
    write(vault, "leases.md", NOTE)
    write(vault, "other.md", "# Other\n\nNothing about clocks.\n")
    with Service.open(str(vault), rescan_interval=0) as svc:
        hit = svc.recall("fast clock renews too late", mode="bm25").hits[0]
    assert (
        hit.path == "leases.md"
        and hit.heading == "Failure modes > Clock skew"
        and hit.lines == "11-14"
    )
    assert hit.snippet.startswith("A fast clock renews too late.")


def test_a_title_never_comes_from_a_comment_in_code() -> None:
    body = "Set up sync.\n\n```bash\n# Login\nob login\n```\n\n# Later heading\n"
    assert parse_note("Headless Sync.md", body).title == "Headless Sync"  # Obsidian's: the file
    assert parse_note("Headless Sync.md", "```sh\n# Login\n```\n").title == "Headless Sync"
    assert parse_note("Headless Sync.md", "# Real title\n\nSet up sync.\n").title == "Real title"


def test_a_blank_heading_never_titles_a_note() -> None:
    """`# ` with nothing after it (hypothesis found `'# \\t'`) is no title: the next one is, else
    the name."""
    assert parse_note("notes/a.md", "# \t").title == "a"
    assert parse_note("notes/a.md", "#  \n# Real title\n").title == "Real title"


def test_only_an_opening_h1_titles_a_note() -> None:
    """An opening `##` is no title (Obsidian's help pages open with one): an `index.md` is named by
    its folder, another note by its file; an opening H1 is the stated fallback."""
    body = "\n## File name conventions for ADRs\n\nUse a present-tense verb.\n"
    assert parse_note("en/file-names/index.md", body).title == "file-names"
    body = "\n# File name conventions for ADRs\n\nUse a present-tense verb.\n"
    assert parse_note("en/file-names/index.md", body).title == "File name conventions for ADRs"
    # a help page that opens with text keeps its file name, whatever its sections are called
    page = "Press a key to run a command.\n\n## Set a hotkey\n\nOpen settings.\n"
    assert parse_note("User interface/Hotkeys.md", page).title == "Hotkeys"


def test_an_index_page_without_a_heading_is_named_by_its_folder() -> None:
    assert (
        parse_note("locales/en/templates/index.md", "A list of templates.\n").title == "templates"
    )
    assert parse_note("docs/guide/README.md", "Start here.\n").title == "guide"
    assert parse_note("README.md", "Start here.\n").title == "README"  # no folder to name it


def test_comments_and_escapes_never_reach_a_title() -> None:
    text = "# Use \\[brackets\\] <!-- TODO: rename -->\n\nBody.\n"
    assert parse_note("a.md", text).title == "Use [brackets]"
    fm = '---\ntitle: "A \\\\*starred\\\\* note <!-- x -->"\n---\nBody.\n'
    assert parse_note("b.md", fm).title == "A *starred* note"
