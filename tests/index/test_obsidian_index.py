"""The index reads a note as Obsidian does (issue #60): its title is its file name unless its
properties set one, a footnote's definition is no link, a `%%comment%%` holds no link, tag or
searchable text."""

from __future__ import annotations

from k0maru.index.markdown import chunk_note, parse_note
from k0maru.wikilinks import hide_comments


def test_the_title_is_the_file_name_not_a_heading() -> None:
    """Obsidian's title is the file name; k0maru's one stated fallback is an H1 opening the note
    (docs/console.md), never a `##` or a template's placeholder."""
    assert parse_note("Publish/Analytics.md", "## Prerequisites\n\nText.\n").title == "Analytics"
    assert parse_note("Plugins/Templates.md", "# {{title}}\n").title == "Templates"
    assert parse_note("a/Note.md", "Text first.\n\n# Another name\n").title == "Note"
    assert parse_note("a/Note.md", "# Another name\n\nText.\n").title == "Another name"
    assert parse_note("a/Note.md", "---\ntitle: Set here\n---\n# H\n").title == "Set here"


def test_a_heading_that_is_not_the_title_stays_in_the_heading_path() -> None:
    note = parse_note("ruff/A002.md", "Intro.\n\n# builtin-argument-shadowing\n\n## What it does\n")
    chunks = chunk_note(note.title, note.body, 2000)
    assert note.title == "A002"
    assert chunks[-1].section == "builtin-argument-shadowing > What it does"


def test_footnote_definitions_are_no_links() -> None:
    text = "A claim[^1] and [x](Other.md).\n\n[^1]: Vault ID is the name.\n[^2]: This one.\n"
    assert [x.target for x in parse_note("n.md", text).links] == ["Other.md"]
    assert [x.key for x in parse_note("n.md", "[ref]: Other.md\n").links] == ["/other"]


def test_comments_hold_no_links_tags_or_text() -> None:
    text = "Seen [[A]] #seen %%hidden [[B]] #hid%% after.\n\n%%\nblock [[C]]\n%%\nend `%%code%%`\n"
    note = parse_note("n.md", text)
    assert [x.target for x in note.links] == ["A"] and note.tags == ["seen"]
    chunks = chunk_note(note.title, note.body, 2000)
    joined = " ".join(c.text for c in chunks)
    assert "hidden" not in joined and "block" not in joined and "`%%code%%`" in joined
    assert chunks[-1].line_end == 6  # lines still counted as the file has them


def test_hide_comments_keeps_offsets_and_code() -> None:
    text = "a %%b\nc%% d `%%` e %%open"
    hidden = hide_comments(text)
    assert len(hidden) == len(text) and hidden.count("\n") == 1
    assert hidden.split() == ["a", "d", "`%%`", "e"]
