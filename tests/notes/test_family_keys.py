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


def test_a_line_some_records_lack_and_all_others_fill_is_written_only_when_given(
    tmp_path: Path,
) -> None:
    for vault in (tmp_path / "a", tmp_path / "b"):
        for n in (1, 2, 3, 4, 5):
            issue = f"- Tracking Issue: https://x.org/{n}\n" if n % 2 else ""
            write(vault, f"text/000{n}-r{n}.md", f"# R{n}\n\n{issue}- Owner: o{n}\n\n## S\n\nS.\n")
    text = flushed(tmp_path / "a", "adr", "Use X", "## S\n\nX.\n")
    assert "Tracking Issue" not in text  # the records add it once filed: never written empty
    assert "- Owner:\n" in text  # every record gives it: a slot to fill
    given = flushed(tmp_path / "b", "adr", "Use Y", "## S\n\nY.\n", extra={"tracking issue": "#9"})
    assert "- Tracking Issue: #9\n- Owner:\n" in given
    said = ConventionSniffer(tmp_path / "b").sniff().rules["adr"].explain()
    assert "metadata line: - Tracking Issue: (only when given)" in said


def test_a_series_title_is_written_in_the_records_case_with_its_number(tmp_path: Path) -> None:
    for n in (1, 2, 3):
        head = f"---\ntitle: 'This week in Nu #{n}'\n---\n\n# This Week in Nu #{n}\n\n"
        write(tmp_path / "a", f"blog/2026-04-0{n}-twin{n}.md", head + "## News\n\nx\n")
        write(
            tmp_path / "b",
            f"news/2026-04-0{n}-rust.md",
            f"Title: Rust Weekly {n}\nNumber: {n}\n\nx\n",
        )
    release = "---\ntitle: Nu 0.1.2\n---\n\n# Nu 0.1.2\n\n## News\n\nz\n"  # another series
    write(tmp_path / "a", "blog/2026-04-02-nu_v0_1_2.md", release)
    nu = flushed(tmp_path / "a", "log", "This week in Nu #4", "## News\n\ny\n")
    assert "title: 'This week in Nu #4'\n" in nu and "\n# This Week in Nu #4\n" in nu
    said = ConventionSniffer(tmp_path / "a").sniff().rules["log"].explain()
    assert any(line.startswith("series heading: This Week in Nu #{d}") for line in said)
    rust = flushed(tmp_path / "b", "log", "Rust weekly", "y\n")  # its number: the counter's next
    assert rust.startswith("Title: Rust Weekly 4\nNumber: 4\n")
    other = flushed(tmp_path / "b", "log", "A special issue", "z\n")
    assert other.startswith("Title: A special issue\n")


def test_a_tags_line_some_records_leave_empty_takes_the_tags_given(tmp_path: Path) -> None:
    for n, tags in ((1, ""), (2, " agile team"), (3, " ops infra")):
        meta = f"- Status: accepted\n- Tags:{tags}\n"
        write(tmp_path, f"adr/000{n}-d{n}.md", f"# D{n}\n\n{meta}\n## Context\n\nC.\n")
    tagged = flushed(tmp_path, "adr", "Use X", "## Context\n\nX.\n", tags=["daily", "sync"])
    assert "- Tags: daily sync\n" in tagged  # never dropped for the empty slot of a record
    untagged = flushed(tmp_path, "adr", "Use Y", "## Context\n\nY.\n")
    assert "- Tags:\n" in untagged  # none given: left empty, as some records leave it
    said = ConventionSniffer(tmp_path).sniff().rules["adr"].explain()
    assert "metadata line: - Tags: {tags} (else empty)" in said


def test_a_line_holding_each_records_number_takes_the_number_given(tmp_path: Path) -> None:
    for n, owner in ((1, "ann"), (2, "bob"), (3, "cy")):
        meta = f"* Issue: [#{n}](https://x.org/issues/{n})\n* Owner: {owner}\n"
        write(tmp_path, f"geps/gep-{n}/index.md", f"# GEP-{n}: R{n}\n\n{meta}\n## Summary\n\nS.\n")
    given = flushed(tmp_path, "adr", "GEP-7: Use X", "## Summary\n\nX.\n")
    assert "* Issue: [#7](https://x.org/issues/7)\n* Owner:\n" in given
    guessed = flushed(tmp_path, "adr", "Use Y", "## Summary\n\nY.\n")  # the next free number
    assert "* Issue:\n" in guessed  # not a link to an issue no one filed: left to fill
    said = ConventionSniffer(tmp_path).sniff().rules["adr"].explain()
    line = "* Issue: (with a number given: [#{n}](https://x.org/issues/{n}))"
    assert f"metadata line: {line}" in said


def test_a_frontmatter_title_keeps_the_numbered_lead_the_records_give_it(tmp_path: Path) -> None:
    for n in (1, 2, 3):
        head = f'---\ntitle: "GEP-{n}: R{n}"\n---\n\n* Status: Provisional\n\n'
        write(tmp_path, f"geps/gep-{n}/index.md", head + "## TLDR\n\nx\n")
    text = flushed(tmp_path, "adr", "GEP-7: Route by address", "## TLDR\n\ny\n")
    assert text.startswith('---\ntitle: "GEP-7: Route by address"\n---\n')
    said = ConventionSniffer(tmp_path).sniff().rules["adr"].explain()
    assert 'frontmatter: title: "GEP-{n}: {title}"' in said
