"""Never an empty key the records do not leave empty (#58): a key the family's records fill each
their own way is filled from the request or left out; one they leave empty stays empty."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from k0maru.notes.conventions import ConventionSniffer
from k0maru.notes.flush import FlushEngine

WHEN = date(2026, 5, 6)


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def flushed(root: Path, kind: str, title: str, body: str, **kw: object) -> str:
    result = FlushEngine(root).flush(kind, title, body, when=WHEN, **kw)  # type: ignore[arg-type]
    return (root / result.path).read_text(encoding="utf-8")


def test_a_summary_key_takes_the_bodys_first_sentence(tmp_path: Path) -> None:
    for n in (1, 2, 3):
        head = f"---\ntitle: Post {n}\nsummary: Post {n} says {n}.\nauthor: a{n}\n---\n\n"
        write(tmp_path, f"_posts/2026-0{n}-01-post-{n}.md", head + "## News\n\nx\n")
    body = "Servo shipped media queries. And more.\n\n## News\n\ny\n"
    text = flushed(tmp_path, "log", "June in Servo", body)
    assert "summary: Servo shipped media queries.\n" in text
    assert "author" not in text  # each record its own, none given: left out, not empty


def test_a_key_the_records_leave_empty_stays_empty(tmp_path: Path) -> None:
    for n in (1, 2, 3):
        head = f"---\ntitle: R{n}\nreviewers:\nowner: o{n}\n---\n\n"
        write(tmp_path, f"docs/manual/howto-{n}.md", head + "Text.\n")
    text = flushed(tmp_path, "card", "Fix it", "Text.\n")
    assert "reviewers:\n" in text and "owner" not in text
    given = flushed(tmp_path, "card", "Fix that", "Other.\n", extra={"owner": "me"})
    assert "owner: me\n" in given


def test_a_tags_line_is_filled_from_the_tags_or_left_out(tmp_path: Path) -> None:
    for n, tag in ((1, "ML"), (2, "Data"), (3, "Stats")):
        write(tmp_path, f"notes/Note {n}.md", f"Tags: [[{tag}]]\n\n# Intro\n\nText {n}.\n")
    for n in range(4, 14):
        write(tmp_path, f"notes/Other {n}.md", f"Tags: [[T{n}]]\n\n# Intro\n\nx\n")
    tagged = flushed(tmp_path, "card", "Focal loss", "# Intro\n\nText.\n", tags=["ML", "loss"])
    assert "Tags: [[ML]] [[loss]]\n" in tagged
    untagged = flushed(tmp_path, "card", "Class weights", "# Intro\n\nText.\n")
    assert "Tags:" not in untagged and "Text." in untagged


def test_a_list_key_the_records_fill_is_left_out_and_a_shared_one_kept(tmp_path: Path) -> None:
    for n in (1, 2, 3):
        head = f"---\ntitle: e-{n}\nauthors:\n  - '@a{n}'\nteam:\n  - core\nstatus: draft\n---\n\n"
        write(tmp_path, f"enhancements/e-{n}.md", head + "## Summary\n\nx\n")
    write(tmp_path, "enhancements/template.md", "---\ntitle:\nauthors:\nteam:\n---\n\n## Summary\n")
    text = flushed(tmp_path, "adr", "e-4", "## Summary\n\ny\n")
    assert "authors" not in text  # a template's slot every record fills: left out, never empty
    assert "team:\n  - core\n" in text  # the list every record gives the same, kept
    said = ConventionSniffer(tmp_path).sniff().rules["adr"].explain()
    assert any("authors (only when given)" in line and "team: [core]" in line for line in said)


def test_a_number_every_name_shares_is_a_word_not_a_counter(tmp_path: Path) -> None:
    for name in ("x86 assembly", "x86 status flags", "x86 assemblers", "zero input", "work"):
        write(tmp_path, f"Concepts/{name}.md", f"# {name}\n\ntext\n")
    for folder in ("Writings", "Fleeting"):
        for n in (1, 2):
            write(tmp_path, f"{folder}/{folder.lower()} {n}.md", "text\n")
    result = FlushEngine(tmp_path).flush("card", "Cryptography", "About ciphers.\n", when=WHEN)
    assert result.path.rsplit("/", 1)[-1] == "cryptography.md"  # not `x87 cryptography.md`
