"""Record families other than ADR logs (#58): the family's section order and level, counters in
names and metadata, fixed numbers, dated headings, tags, parallel folders and family folders."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from k0maru.notes.conventions import ConventionSniffer
from k0maru.notes.flush import FlushEngine

WHEN = date(2024, 3, 1)


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def flushed(root: Path, kind: str, title: str, body: str, **kw: object) -> tuple[str, str]:
    result = FlushEngine(root).flush(kind, title, body, when=WHEN, **kw)  # type: ignore[arg-type]
    return result.path, (root / result.path).read_text(encoding="utf-8")


def heads(text: str, mark: str = "## ") -> list[str]:
    return [line[len(mark) :] for line in text.splitlines() if line.startswith(mark)]


def test_sections_come_in_the_family_order_whatever_order_the_body_gives(tmp_path: Path) -> None:
    for n in (1, 2, 3):
        write(
            tmp_path,
            f"docs/adr/000{n}-r{n}.md",
            f"# R{n}\n\n## Context\n\nc\n\n## Decision\n\nd\n\n## Consequences\n\nq\n",
        )
    body = "## Consequences\n\nQ.\n\n## Notes\n\nmine\n\n## Decision\n\nD.\n\n## Context\n\nC.\n"
    _, text = flushed(tmp_path, "adr", "Use X", body)
    # a section the family does not name comes before the next one the body gives that it does
    assert heads(text) == ["Context", "Notes", "Decision", "Consequences"]
    assert "mine" in text and "Q." in text and "D." in text and "C." in text  # no text lost


def test_level_one_sections_are_written_where_the_family_uses_them(tmp_path: Path) -> None:
    for n in (1, 2, 3):
        write(
            tmp_path,
            f"rfcs/000{n}-r{n}.md",
            f"# Summary\n\ns{n}\n\n# Motivation\n\nm\n\n# Drawbacks\n\nd\n",
        )
    _, text = flushed(tmp_path, "adr", "New", "## Drawbacks\n\nbad\n\n## Summary\n\nsum\n")
    assert heads(text, "# ") == ["Summary", "Drawbacks"] and "## " not in text


def test_a_counter_under_a_year_keeps_its_counter(tmp_path: Path) -> None:
    for n in (1, 2, 3):
        write(
            tmp_path,
            f"postmortems/PM2024-00{n} - Outage {n}.md",
            f"# Outage {n}\n\n## Impact\n\nx\n",
        )
    path, _ = flushed(tmp_path, "log", "Sync conflicts", "## Impact\n\ny\n")
    assert path == "postmortems/PM2024-004 - Sync Conflicts.md"


def test_a_number_every_record_carries_is_kept(tmp_path: Path) -> None:
    for slug in ("alpha", "beta", "gamma"):
        write(tmp_path, f"proposals/0000-{slug}.md", f"# {slug}\n\n## Summary\n\nx\n")
    path, _ = flushed(tmp_path, "adr", "Delta plan", "## Summary\n\ny\n")
    assert path == "proposals/0000-delta-plan.md"


def test_a_dated_heading_keeps_its_date(tmp_path: Path) -> None:
    for day in ("2024-01-01", "2024-01-08", "2024-01-15"):
        write(tmp_path, f"minutes/{day}.md", f"# Team meeting {day}\n\n## Notes\n\nn\n")
    path, text = flushed(tmp_path, "log", "Team meeting", "## Notes\n\nx\n")
    assert path == "minutes/2024-03-01.md" and text.startswith("# Team meeting 2024-03-01\n")


def test_title_and_number_lines_are_filled(tmp_path: Path) -> None:
    for n in (41, 42, 43):
        write(
            tmp_path,
            f"newsletters/issue-{n}.md",
            f"Title: This Week in X {n}\nNumber: {n}\n\n## News\n\nn\n",
        )
    _, text = flushed(tmp_path, "log", "This Week in X 44", "## News\n\nx\n")
    assert "Title: This Week in X 44\n" in text and "Number: 44\n" in text


def test_tags_are_written_in_the_vault_tag_form(tmp_path: Path) -> None:
    for folder in ("Obsidian", "Obsidian Sync", "Linux"):
        for name in ("Vault setup", "Plugins list", "Hotkeys"):
            write(
                tmp_path,
                f"{folder}/{name} {folder}.md",
                f"---\ntags: [{folder.split()[0].lower()}]\n---\n\n# {name}\n\ntext\n",
            )
    path, text = flushed(tmp_path, "card", "Sync conflicts on iOS", "text\n", tags=["sync", "ios"])
    assert path.startswith("Obsidian Sync/")
    assert "tags: [obsidian, sync, ios]\n" in text  # the tag each note of the folder has, first


def test_tags_are_kept_where_the_records_have_no_tag_key(tmp_path: Path) -> None:
    for n in (1, 2, 3):
        write(
            tmp_path,
            f"docs/adr/000{n}-r{n}.md",
            f"# {n}. R{n}\n\nDate: 2024-01-0{n}\n\n## Context\n\nc\n",
        )
    _, text = flushed(tmp_path, "adr", "Use X", "## Context\n\nc\n", tags=["sync", "ios"])
    assert "sync" in text and "ios" in text


def test_a_value_holding_the_file_slug_is_filled_not_left_empty(tmp_path: Path) -> None:
    for slug in ("alpha", "beta", "gamma"):
        write(tmp_path, f"cards/{slug}.md", f"---\npermalink: /{slug}\n---\n\n# {slug}\n\ntext\n")
    _, text = flushed(tmp_path, "card", "Sync conflicts", "text\n")
    assert "permalink: /sync-conflicts\n" in text


def test_parallel_folders_take_the_note_their_hint_names(tmp_path: Path) -> None:
    for group, count in (("accepted", 2), ("done", 5)):
        for n in range(count):
            write(tmp_path, f"docs/proposals-{group}/2024{n + 1:02d}-p{n}.md", f"# P{n}\n\nx\n")
    sniffer = ConventionSniffer(tmp_path)
    conventions = sniffer.sniff()
    assert set(conventions.parallel["adr"]) == {"docs/proposals-accepted", "docs/proposals-done"}
    result = FlushEngine(tmp_path, conventions, sniffer).flush(
        "adr", "Tenancy", "x\n", extra={"status": "accepted"}, when=WHEN
    )
    assert result.path.startswith("docs/proposals-accepted/")
    assert any("hint" in w for w in result.warnings)  # says which and why


def test_a_family_folder_named_for_meetings_holds_the_logs(tmp_path: Path) -> None:
    for n in (148, 149, 150):
        write(tmp_path, f"AllCoreDevs-CL-Meetings/Call_{n}.md", f"# Call {n}\n\n## Agenda\n\na\n")
    rule = ConventionSniffer(tmp_path).sniff().rules["log"]
    assert rule.folder == "AllCoreDevs-CL-Meetings"


def test_numbered_record_folders_are_a_record_set(tmp_path: Path) -> None:
    for n in (1, 2, 3):
        write(
            tmp_path,
            f"enhancements/KEP-000{n}/README.md",
            f"# KEP-000{n}: K{n}\n\n## Summary\n\ns\n",
        )
    assert ConventionSniffer(tmp_path).sniff().rules["adr"].folder == "enhancements"
    write(tmp_path, "specs/spec-0001/index.md", "# S\n")
    write(tmp_path, "specs/spec-0002/index.md", "# S\n")
    rules = ConventionSniffer(tmp_path / "specs").sniff().rules
    assert rules["adr"].folder == ""  # spec-NNNN/index.md at the root of its tree


def test_group_minutes_keep_their_heading_and_go_where_the_body_heading_says(
    tmp_path: Path,
) -> None:
    for group, days in (("outreach", (2, 16)), ("ecosystem", (8, 22)), ("api", (1, 15))):
        name = group.capitalize()
        for day in days:
            write(
                tmp_path,
                f"wg-{group}/meeting-notes/2021-07-{day:02d}.md",
                f"# {name} WG\nDate: Jul {day}, 2021\n\n## Attendees\n\n* a\n\n## Agenda\n\nx\n",
            )
    body = "# Outreach WG\nDate: Aug 30, 2021\n\n## Attendees\n\n* b\n\n## Agenda\n\ny\n"
    path, text = flushed(tmp_path, "log", "2021 08 30", body)
    # no title word names a group: the body's own `# ` heading does, and it is said
    assert path == "wg-outreach/meeting-notes/2024-03-01.md"
    # the group's one heading heads the note once, and the body's date line is not said twice
    assert text.startswith("# Outreach WG\nDate: Aug 30, 2021\n\n## Attendees\n")
    assert text.count("Date:") == 1 and text.count("# Outreach WG") == 1
    _, plain = flushed(tmp_path, "log", "Outreach sync", "## Attendees\n\n* c\n")
    # the title no heading carries leads the body, never dropped
    assert plain.startswith("# Outreach WG\nDate: Mar 1, 2024\n\n**Outreach sync**\n\n## Attendees")


def test_a_reserved_all_nines_number_is_not_counted(tmp_path: Path) -> None:
    for n in ("0001", "0002", "9999"):
        write(tmp_path, f"CIP-{n}/README.md", f"---\nCIP: {int(n)}\n---\n\n## Abstract\n\na\n")
    path, _ = flushed(tmp_path, "adr", "Ledger rules", "## Abstract\n\nb\n")
    assert path == "CIP-0003/README.md"


def test_a_templates_section_order_beats_the_bodys_and_the_records(tmp_path: Path) -> None:
    write(tmp_path, "rfcs/0000-template.md", "# Summary\n\n# Motivation\n\nWhy?\n\n# Drawbacks\n")
    for n in (1, 2, 3):  # the records drift from the template: it still gives the order
        write(
            tmp_path, f"rfcs/000{n}-r{n}.md", "# Drawbacks\n\nd\n\n# Summary\n\ns\n\n# Motivation\n"
        )
    body = "# Drawbacks\n\nbad\n\n# Motivation\n\nwhy\n\n# Summary\n\nsum\n"
    _, text = flushed(tmp_path, "adr", "New", body)
    assert heads(text, "# ") == ["Summary", "Motivation", "Drawbacks"]
    assert all(word in text for word in ("bad", "why", "sum"))
    _, text = flushed(tmp_path, "adr", "Other", "# Drawbacks\n\nbad\n\n# Summary\n\nsum\n")
    assert "# Summary\n\nsum\n\n# Motivation\n\nWhy?\n\n# Drawbacks\n\nbad\n" in text
