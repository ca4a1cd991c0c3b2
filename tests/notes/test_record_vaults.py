"""Record families' write path, second round (#58): each on a small vault of the shape a real
repository or notes vault showed. Numbers a guide leaves to a bot, Johnny-Decimal IDs, a dated
series' counter and its nested frontmatter, and a vault that files notes by topic: tags kept, names
in the vault's case, no key written empty that its notes fill, and `conventions` saying so."""

from datetime import date
from pathlib import Path

from k0maru.notes.conventions import ConventionSniffer
from k0maru.notes.flush import FlushEngine
from tests.helpers import write

WHEN = date(2026, 8, 21)
RFC = "---\ntitle: {t}\nnumber: {n}\n---\n\n# {t}\n\n## Summary\n\nx\n"


def rfcs(vault: Path, guide: str) -> None:
    write(vault, "README.md", guide)
    for n, t in ((28, "publish-prompt"), (35, "registry-spec"), (37, "audit-overrides")):
        write(vault, f"accepted/00{n}-{t}.md", RFC.format(t=t, n=n))


def test_a_guide_that_leaves_numbers_to_a_bot_keeps_the_zero_number(vault: Path) -> None:
    rfcs(
        vault,
        "# RFCs\n\n* Copy `accepted/0000-template.md` into `accepted/0000-your-rfc-name.md`\n\n"
        "Numbering, status and dates are bot-managed.\n",
    )
    note = FlushEngine(vault).flush("adr", "Manifest repairs", "## Summary\n\nS.\n", when=WHEN)
    assert note.path == "accepted/0000-manifest-repairs.md"
    assert "\nnumber: null\n" in (vault / note.path).read_text()  # not given yet, never ''
    told = "\n".join(ConventionSniffer(vault).sniff().rules["adr"].evidence)
    assert "README.md: * Copy `accepted/0000-template.md`" in told
    assert "numbered by a bot once merged, so written as 0000" in told


def test_a_guide_naming_drafts_0000_without_a_bot_gives_the_next_number(vault: Path) -> None:
    rfcs(vault, "# RFCs\n\nCreate your proposal as `accepted/0000-my-feature.md`.\n")
    note = FlushEngine(vault).flush("adr", "Manifest repairs", "## Summary\n\nS.\n", when=WHEN)
    assert note.path == "accepted/0038-manifest-repairs.md"
    assert "\nnumber: 38\n" in (vault / note.path).read_text()


def test_a_johnny_decimal_vault_files_a_card_in_its_category_with_the_next_id(
    vault: Path,
) -> None:
    for n in (1, 2, 3):
        write(vault, f"10-19 Projects/11 Active/11.0{n} Project {n}.md", f"# Project {n}\n\nx\n")
        write(vault, f"40-49 Resources/41 Tools/41.0{n} Tool {n}.md", f"# Tool {n}\n\nx\n")
        write(vault, f"40-49 Resources/42 Reading/42.0{n} Book {n}.md", f"# Book {n}\n\nx\n")
    note = FlushEngine(vault).flush("card", "ripgrep tips", "A tool to search.\n", when=WHEN)
    assert note.path == "40-49 Resources/41 Tools/41.04 Ripgrep tips.md"
    assert note.warnings[0].startswith("filed by topic: shares tool with 40-49 Resources/41 Tools/")
    told = ConventionSniffer(vault).sniff().rules["card"].explain()
    assert told[0].startswith("folder: notes filed by topic in 3 folders (10-19 Projects/11 Active")


def test_a_dated_series_keeps_its_counter_name_and_nested_frontmatter(vault: Path) -> None:
    for n in (361, 362, 363):
        head = (
            f"---\ntitle: This week in Nu #{n}\nauthor: The Nu Authors\ndata:\n  twin: {n}\n"
            f"  start: 2026-07-{n - 350}\n  kind: weekly\ntags: [twin, news]\n---\n\n"
        )
        write(vault, f"blog/2026-07-{n - 340}-twin0{n}.md", head + f"# This week in Nu #{n}\n\nx\n")
    note = FlushEngine(vault).flush(
        "log", "This week in Nu #365", "News.\n", ["twin", "news"], when=WHEN
    )
    assert note.path == "blog/2026-08-21-twin0365.md"
    text = (vault / note.path).read_text()
    assert text.startswith(
        "---\ntitle: 'This week in Nu #365'\nauthor: The Nu Authors\n"
        "data:\n  twin: 365\n  kind: weekly\ntags: [twin, news]\n---\n\n# This week in Nu #365\n"
    )
    plain = FlushEngine(vault).flush("log", "Quiet week", "News.\n", ["twin"], when=WHEN)
    assert plain.path == "blog/2026-08-21-twin0366.md"  # no number given: the next one


def test_a_nested_title_and_date_take_the_requests(vault: Path) -> None:
    for n in (17, 18):
        head = f"template: layouts/issue\n\ndata:\n    date: 2022-11-{n}\n"
        head += f"    title: This Week in Dart - Issue {n}\n    description: No. {n}\n"
        write(vault, f"pages/issues/issue-{n}.md", f"---\n{head}    weight: {n}\n---\n\nHello.\n")
    note = FlushEngine(vault).flush("log", "This Week in Dart: Issue 19", "Hi.\n", when=WHEN)
    text = (vault / note.path).read_text()
    assert note.path == "pages/issues/issue-19.md"
    assert (
        '    date: 2026-08-21\n    title: "This Week in Dart: Issue 19"\n    weight: 19\n' in text
    )
    assert "description" not in text  # a child each record gives its own way is left out


def test_a_topic_vault_keeps_tags_case_and_the_keys_its_notes_leave_empty(vault: Path) -> None:
    notes = {
        "Obsidian Sync": ("Vault setup on a new phone", "Sync settings explained", "Sync logs"),
        "Obsidian": ("Canvas basics", "Plugins I use", "Daily notes workflow"),
        "Reading": ("Deep work", "Atomic habits", "How to take smart notes"),
    }
    for folder, titles in notes.items():
        for title in titles:
            link = title.lower().replace(" ", "-")
            fm = (
                f"---\ntags:\n  - {folder.split()[-1].lower()}\naliases:\npermalink: /{link}\n---\n"
            )
            write(vault, f"{folder}/{title}.md", f"{fm}\n# {title}\n\nText.\n")
    told = ConventionSniffer(vault).sniff().rules["card"].explain()
    assert told[0].startswith("folder: notes filed by topic in 3 folders (Obsidian, Obsidian Sync")
    assert told[1].startswith("form: the form of the topic folder's own notes")
    note = FlushEngine(vault).flush(
        "card", "Sync conflicts on iOS", "Two devices edit.\n", ["sync", "ios"], when=WHEN
    )
    assert note.path == "Obsidian Sync/Sync conflicts on iOS.md"
    text = (vault / note.path).read_text()
    assert text.startswith(
        "---\ntags:\n- sync\n- ios\naliases:\npermalink: /sync-conflicts-on-ios\n"
    )


def test_a_group_folder_is_chosen_by_the_title_and_said(vault: Path) -> None:
    kep = "# KEP-{n}: {t}\n\n## Summary\n\ns\n"
    groups = {
        "sig-storage": ((625, "csi-migration"), (1432, "volume-health-monitor")),
        "sig-instrumentation": ((1206, "metrics-overhaul"), (2305, "metrics-cardinality")),
        "sig-node": ((2837, "pod-level-resources"), (3063, "dynamic-resource-allocation")),
    }
    for group, records in groups.items():
        for n, t in records:
            write(vault, f"keps/{group}/{n}-{t}/README.md", kep.format(n=n, t=t))
    write(vault, "keps/sig-node/0000-kep-process/README.md", kep.format(n=0, t="process"))
    write(vault, "keps/sig-node/0000-kep-process/other.md", "# Other\n")
    engine = FlushEngine(vault)
    assert set(engine.conventions.parallel["adr"]) == {f"keps/{g}" for g in groups}
    note = engine.flush("adr", "Native histogram metrics", "## Summary\n\nS.\n", when=WHEN)
    assert note.path == "keps/sig-instrumentation/3064-native-histogram-metrics/README.md"
    assert note.warnings == [
        "filed by topic: shares metric with keps/sig-instrumentation/ (1.4 vs 0.0); "
        "3 parallel adr folders; `flush --folder NAME` picks another"
    ]
    hinted = engine.flush(
        "adr", "Histogram storage", "## Summary\n\nS.\n", extra={"folder": "storage"}, when=WHEN
    )
    assert hinted.path == "keps/sig-storage/3065-histogram-storage/README.md"


def test_minutes_beside_monthly_notes_follow_the_family_the_title_names(vault: Path) -> None:
    for month in ("05", "06", "07"):
        write(
            vault, f"meetings/2025/2025-{month}.md", f"# WG notes 2025-{month}\n\n## Agenda\n\nx\n"
        )
        write(
            vault, f"meetings/2026/2026-{month}.md", f"# WG notes 2026-{month}\n\n## Agenda\n\nx\n"
        )
    for day in ("2026-06-11", "2026-07-02"):
        summary = "# Meeting summary\n\n## Quick recap\n\nr\n\n## Next steps\n\nn\n"
        write(vault, f"meetings/2026/summary-{day}.md", summary)
    body = "## Quick recap\n\nWe met.\n\n## Next steps\n\nMore.\n"
    when = date(2026, 7, 16)
    note = FlushEngine(vault).flush("log", "Meeting summary", body, when=when)
    assert note.path == "meetings/2026/summary-2026-07-16.md"
    monthly = FlushEngine(vault).flush("log", "WG notes", "## Agenda\n\nA.\n", when=WHEN)
    assert monthly.path == "meetings/2026/2026-08.md"


def test_a_dated_series_keeps_its_name_and_fills_its_title_and_number_lines(vault: Path) -> None:
    for n in (598, 599, 600):
        head = f"Title: This Week in Rust {n}\nNumber: {n}\nDate: 2026-06-0{n - 597}\n\n"
        write(vault, f"content/2026-06-0{n - 597}-this-week-in-rust.md", head + "Hi.\n\n## News\n")
    note = FlushEngine(vault).flush(
        "log", "This Week in Rust 601", "Hi.\n\n## News\n\nx\n", ["rust"], when=date(2026, 6, 10)
    )
    assert note.path == "content/2026-06-10-this-week-in-rust.md"
    text = (vault / note.path).read_text()
    assert text.startswith("Title: This Week in Rust 601\nNumber: 601\nDate: 2026-06-10\n")
    assert "tags: rust" in text  # kept, though the records give none


def test_an_index_of_records_kept_as_folders_gets_a_row(vault: Path) -> None:
    rows = "| KEP | Title |\n|---|---|\n"
    for n, t in ((7, "Queue limits"), (9, "Fair sharing")):
        slug = t.lower().replace(" ", "-")
        write(vault, f"keps/{n}-{slug}/README.md", f"# KEP-{n}: {t}\n\n## Summary\n\nx\n")
        rows += f"| [KEP-{n}](./{n}-{slug}/README.md) | {t} |\n"
    write(vault, "keps/README.md", rows)
    note = FlushEngine(vault).flush("adr", "Admission checks", "## Summary\n\nS.\n", when=WHEN)
    assert note.path == "keps/10-admission-checks/README.md"
    assert (
        (vault / "keps/README.md")
        .read_text()
        .endswith(
            "| [KEP-9](./9-fair-sharing/README.md) | Fair sharing |\n"
            "| [KEP-10](./10-admission-checks/README.md) | Admission checks |\n"
        )
    )


def test_conventions_say_a_nested_keys_shape(vault: Path) -> None:
    for n in (361, 362, 363):
        head = f"---\ntitle: Nu #{n}\ndata:\n  twin: {n}\n  kind: weekly\n---\n\n# Nu #{n}\n\nx\n"
        write(vault, f"blog/2026-07-{n - 340}-twin0{n}.md", head)
    told = "\n".join(ConventionSniffer(vault).sniff().rules["log"].explain())
    assert "frontmatter: title: {title}, data: {twin: {n}, kind: weekly}" in told
