"""Record shapes met in real vaults (#39, fourth round): metadata before the first heading, a
`# Summary` each record opens with, letter-prefixed and year-month names, RFC and proposal folders,
a template's metadata while the records are few, frontmatter YAML rejects, a body section that
stands for a longer template title."""

from datetime import date
from pathlib import Path

from k0maru.notes.conventions import ConventionSniffer
from k0maru.notes.flush import FlushEngine
from tests.helpers import write

WHEN = date(2026, 7, 20)


def written(
    vault: Path, kind: str, title: str, body: str, tags: list[str] | None = None
) -> tuple[str, str]:
    note = FlushEngine(vault).flush(kind, title, body, tags, when=WHEN)
    return note.path, (vault / note.path).read_text(encoding="utf-8")


def test_metadata_before_a_shared_summary_heading_is_kept_and_no_title_heading_added(
    vault: Path,
) -> None:
    for n in (1, 2, 3):
        write(
            vault,
            f"rfcs/000{n}-r{n}.md",
            f"- Start Date: 2026-0{n}-01\n- RFC PR: https://example.org/pull/{n}\n\n"
            f"_Note: prose before the first heading._\n\n# Summary\n\nR{n}.\n\n# Motivation\n\nM.\n",
        )
    path, text = written(vault, "adr", "Use X", "# Summary\n\nX.\n\n# Motivation\n\nWhy.\n")
    assert path == "rfcs/0004-use-x.md"
    assert text.startswith("- Start Date: 2026-07-20\n- RFC PR:\n\n# Summary\n\nX.")
    assert "# Use X" not in text


def test_a_records_own_value_is_not_copied_from_a_single_record(vault: Path) -> None:
    write(
        vault,
        "decisions/20250909-first.md",
        "# First\n\n- Status: proposed\n- Tags: [groups, cip]\n\n## Context\n\nC.\n",
    )
    _, text = written(vault, "decision", "Second", "## Context\n\nC2.\n")
    # the records fill their tags line: the tags given, in their form, else no line at all
    assert "- Status: proposed\n\n" in text and "groups" not in text and "Tags" not in text
    other = vault / "other"
    first = "# First\n\n- Status: proposed\n- Tags: [groups, cip]\n\n## Context\n\nC.\n"
    write(other, "decisions/20250909-first.md", first)
    _, text = written(other, "decision", "Third", "## Context\n\nC3.\n", tags=["db", "ops"])
    assert "- Status: proposed\n- Tags: [db, ops]\n" in text


def test_a_template_gives_the_metadata_keys_while_the_records_are_few(vault: Path) -> None:
    write(
        vault,
        "decisions/template.md",
        "# [short title]\n\n- Status: [draft | accepted] <!-- optional -->\n"
        "- Deciders: [list everyone involved] <!-- optional -->\n"
        "- Date: [YYYY-MM-DD] <!-- optional -->\n- Tags: [tags] <!-- optional -->\n\n"
        "## Context\n\n[Describe.]\n",
    )
    write(
        vault, "decisions/20250909-first.md", "# First\n\n- Status: accepted\n\n## Context\n\nC.\n"
    )
    _, text = written(vault, "decision", "Second", "## Context\n\nC2.\n")
    assert "- Status: accepted\n- Deciders:\n- Date: 2026-07-20\n- Tags:\n" in text
    assert "[list everyone" not in text and "<!--" not in text


def test_frontmatter_keys_are_learnt_where_yaml_rejects_a_value(vault: Path) -> None:
    for n in (1, 2, 3):
        write(
            vault,
            f"rfcs/000{n}-r{n}.md",
            f"---\nfeature: r{n}\nstart-date: 2026-0{n}-01\nshepherd-team: @alice @bob\n---\n\n"
            f"# Summary\n\nR{n}.\n",
        )
    _, text = written(vault, "adr", "Use X", "# Summary\n\nX.\n")
    head = text.split("---\n")[1]
    assert [line.split(":")[0] for line in head.splitlines()] == [
        "feature",
        "start-date",
        "shepherd-team",
    ]
    assert "start-date: '2026-07-20'" in head or "start-date: 2026-07-20" in head


def test_letter_prefixed_numbers_and_names_without_a_slug(vault: Path) -> None:
    for n in (1, 2, 117):
        write(vault, f"A{n}-proposal-{n}.md", f"A{n}: Proposal {n}\n----\n\nText.\n")
    write(vault, "README.md", "# Proposals\n")
    path, _ = written(vault, "adr", "TLS telemetry", "Text.\n")
    assert path == "A118-tls-telemetry.md"
    other = vault / "other"
    for n in (58, 59):
        write(other, f"adr/ADR-{n}.md", f"# ADR {n}\n\nText.\n")
    assert written(other, "adr", "Sourcing", "Text.\n")[0] == "adr/ADR-60.md"


def test_year_month_names(vault: Path) -> None:
    for month in ("202301", "202302", "202305"):
        write(vault, f"docs/proposals/{month}-p{month}.md", f"# P {month}\n\nText.\n")
    path, _ = written(vault, "adr", "Query path tenancy", "Text.\n")
    assert path == "docs/proposals/202607-query-path-tenancy.md"


def test_a_proposals_folder_holds_the_decisions_where_no_adr_folder_is(vault: Path) -> None:
    for day in ("20260101", "20260202", "20260303"):
        write(vault, f"docs/proposals-accepted/{day}-p.md", f"# P {day}\n\nText.\n")
    write(vault, "notes/ideas.md", "# Ideas\n")
    conv = ConventionSniffer(vault).sniff()
    assert conv.rules["adr"].folder == "docs/proposals-accepted"
    write(vault, "docs/adr/0001-first.md", "# 1. First\n")
    write(vault, "docs/adr/0002-second.md", "# 2. Second\n")
    assert ConventionSniffer(vault).sniff().rules["adr"].folder == "docs/adr"


def test_a_body_section_stands_for_the_longer_template_title_it_begins(vault: Path) -> None:
    write(
        vault,
        "docs/decisions/adr-template.md",
        "# [title]\n\n## Context and Problem Statement\n\n[Describe the context.]\n\n"
        "## Decision Outcome\n\n[Outcome.]\n",
    )
    for n in (1, 2):
        write(
            vault,
            f"docs/decisions/000{n}-d{n}.md",
            f"# D{n}\n\n## Context and Problem Statement\n\nC.\n\n## Decision Outcome\n\nO.\n",
        )
    _, text = written(vault, "adr", "Use X", "## Context\n\nWhy.\n\n## Decision Outcome\n\nX.\n")
    heads = [line for line in text.splitlines() if line.startswith("## ")]
    assert heads == ["## Context", "## Decision Outcome"]
    assert "[Describe the context.]" not in text


def test_a_bold_line_in_the_body_is_the_template_section_it_names(vault: Path) -> None:
    write(
        vault,
        "docs/decisions/template.md",
        "# [title]\n\n## Context and Problem Statement\n\n[Describe.]\n\n## Decision Outcome\n\n[O.]\n",
    )
    write(vault, "docs/decisions/0001-d1.md", "# D1\n\n## Context and Problem Statement\n\nC.\n")
    body = "**Context and Problem Statement**\n\nWhy.\n\n**Decision Outcome**\n\nX.\n"
    _, text = written(vault, "adr", "Use X", body)
    assert "## " not in text and "[Describe.]" not in text and "**Decision Outcome**\n\nX." in text


def test_cards_go_to_the_root_of_a_flat_vault_in_its_own_frontmatter(vault: Path) -> None:
    for n, name in enumerate(
        [
            "Git",
            "Docker issues",
            "Redis keys",
            "Vim motions",
            "Rate limits",
            "Crontab jobs",
            "Tmux panes",
            "Nginx proxy",
            "Make rules",
            "Bash traps",
            "SQL joins",
            "Go modules",
        ]
    ):
        keys = "title: {name}\ntags:\n  - t\ncreated: 2024-01-0{d}T10:00:00+08:00\n"
        head = keys.format(name=name, d=n % 9 + 1) + "updated: 2024-02-01T10:00:00+08:00\n"
        write(vault, f"{name}.md", f"---\n{head}---\n\n- a point {n}\n")
    write(vault, "README.md", "# Notes\n")
    path, text = written(vault, "card", "Dark Time", "- thinking time\n", ["t"])
    assert path == "Dark Time.md"
    head = text.split("---\n")[1]
    assert [line.split(":")[0] for line in head.splitlines() if line[:1] not in " -"] == [
        "title",
        "tags",
        "created",
        "updated",
    ]
    assert "kind:" not in text


def test_frontmatter_keys_come_in_the_order_most_records_give_them(vault: Path) -> None:
    orders = ["title,tags,date", "title,tags,date", "title,date,tags"]  # the latest differs
    for n, order in enumerate(orders, start=1):
        head = "".join(f"{k}: v{n}\n" for k in order.split(","))
        write(vault, f"docs/adr/000{n}-r{n}.md", f"---\n{head}---\n\n# R{n}\n\nText.\n")
    _, text = written(vault, "adr", "Use X", "Text.\n", ["t"])
    assert [line.split(":")[0] for line in text.split("---\n")[1].splitlines()] == [
        "title",
        "tags",
        "date",
    ]


def test_plain_journal_notes_get_a_plain_note(vault: Path) -> None:
    for day in ("2026-03-12", "2026-03-13"):
        write(vault, f"journals/{day}.md", f"- woke up\n\t- read [[Book]] on {day}\n")
    path, text = written(vault, "log", "2026-07-20", "- shipped the release\n")
    assert path == "journals/2026-07-20.md"
    assert text == "- shipped the release\n"


def test_a_title_that_starts_with_the_headings_words_is_not_given_them_twice(vault: Path) -> None:
    for n, name in ((1, "alpha"), (2, "beta")):
        write(vault, f"docs/adr/000{n}-{name}.md", f"# Proposal: {name.title()}\n\nText.\n")
    _, text = written(vault, "adr", "Proposal: Leak detection", "Text.\n")
    assert text.startswith("# Proposal: Leak detection\n")
    _, text = written(vault, "adr", "Gamma", "Text.\n")
    assert text.startswith("# Proposal: Gamma\n")


def test_logseq_journals_keep_their_folder_and_underscored_dates(vault: Path) -> None:
    for day in ("2026_03_12", "2026_03_13", "2026_03_14"):
        write(vault, f"journals/{day}.md", f"- [[Reading]]\n\t- notes of {day}\n")
    write(vault, "pages/Reading.md", "- books\n")
    path, text = written(vault, "log", "2026-07-20", "- shipped\n")
    assert path == "journals/2026_07_20.md" and text == "- shipped\n"


def test_a_design_docs_folder_holds_the_decisions_where_no_adr_folder_is(vault: Path) -> None:
    for day in ("2026-01-05", "2026-02-09", "2026-03-02"):
        write(vault, f"designs/{day}-d.md", f"# D {day}\n\nText.\n")
    assert ConventionSniffer(vault).sniff().rules["adr"].folder == "designs"


def test_a_body_section_that_begins_two_template_titles_stands_for_neither(vault: Path) -> None:
    write(
        vault,
        "docs/decisions/adr-template.md",
        "# [title]\n\n## Context and Problem Statement\n\n[C.]\n\n## Decision Drivers\n\n[D.]\n\n"
        "## Considered Options\n\n[O.]\n\n## Decision Outcome\n\n[X.]\n",
    )
    titles = ["Context and Problem Statement", "Decision Drivers", "Considered Options"]
    record = "".join(f"## {t}\n\n{t}.\n\n" for t in [*titles, "Decision Outcome"])
    write(vault, "docs/decisions/0001-d1.md", f"# D1\n\n{record}")
    body = "## Context\n\nWhy.\n\n## Decision\n\nX.\n"
    _, text = written(vault, "adr", "Use X", body)
    heads = [line for line in text.splitlines() if line.startswith("## ")]
    assert heads.index("## Context") == 0  # `Context` stands for the one title it begins
    assert heads.index("## Decision") > heads.index("## Considered Options")  # not for Drivers


def test_a_template_line_in_a_form_no_record_writes_is_left_out(vault: Path) -> None:
    # MADR 2's template: list items, then a plain `Technical Story:` paragraph no record keeps
    write(
        vault,
        "docs/adr/template.md",
        "# [short title]\n\n- Status: [draft | accepted] <!-- optional -->\n"
        "- Deciders: [list everyone involved] <!-- optional -->\n"
        "- Date: [YYYY-MM-DD] <!-- optional -->\n\n"
        "Technical Story: [description | ticket/issue URL] <!-- optional -->\n\n"
        "## Context and Problem Statement\n\n[Describe.]\n",
    )
    for day in ("13", "14"):
        write(
            vault,
            f"docs/adr/202212{day}-r{day}.md",
            f"# R{day}\n\n- Status: accepted\n- Date: 2022-12-{day}\n\n"
            "## Context and Problem Statement\n\nC.\n",
        )
    _, text = written(vault, "adr", "Use X", "## Context and Problem Statement\n\nC2.\n")
    assert "- Status: accepted\n- Deciders:\n- Date: 2026-07-20\n\n## Context" in text
    assert "Technical Story" not in text


def test_a_plain_metadata_line_after_a_list_is_set_apart(vault: Path) -> None:
    for n in (1, 2, 3):
        write(
            vault,
            f"docs/adr/000{n}-r{n}.md",
            f"# R{n}\n\n- Status: accepted\n- Date: 2026-01-0{n}\n"
            f"Technical Story: https://example.org/{n}\n\n## Context\n\nC.\n",
        )
    _, text = written(vault, "adr", "Use X", "## Context\n\nC2.\n")
    # under `- Date:` without a blank line, Markdown reads it as the list item's own text
    assert "- Date: 2026-07-20\n\nTechnical Story:\n\n## Context" in text


def test_a_body_title_with_its_templates_comment_stands_for_that_section(vault: Path) -> None:
    write(
        vault,
        "docs/adr/template.md",
        "# [title]\n\n## Context\n\n[c]\n\n## Decision Drivers <!-- optional -->\n\n- [d]\n\n"
        "## Considered Options\n\n- [o]\n\n## Decision Outcome\n\n[x]\n",
    )
    for n in (1, 2, 3):
        write(
            vault,
            f"docs/adr/000{n}-r{n}.md",
            f"# R{n}\n\n## Context\n\nC.\n\n## Decision Drivers <!-- optional -->\n\n- D.\n\n"
            "## Considered Options\n\n- O.\n\n## Decision Outcome\n\nX.\n",
        )
    body = "## Context\n\nC.\n\n## Decision Drivers <!-- optional -->\n\n- D.\n\n"
    body += "## Decision Outcome\n\nX.\n"
    _, text = written(vault, "adr", "Use X", body)
    heads = [line for line in text.splitlines() if line.startswith("## ")]
    assert heads == [
        "## Context", "## Decision Drivers <!-- optional -->", "## Considered Options",
        "## Decision Outcome",
    ]  # fmt: skip


def test_a_heading_says_its_date_once_where_the_title_gives_it(vault: Path) -> None:
    """Postmortems headed `# 2023-01-23 What broke`: a title that already names the day
    (`Incident report August 12 2025 - ...`) is the heading without the date before it."""
    for day, what in (("2020-10-28", "Memory"), ("2023-01-23", "Ingress"), ("2023-02-01", "Dask")):
        write(
            vault,
            f"reports/{day}-{what.lower()}.md",
            f"# {day} {what} outage\n\n## Summary\n\nS.\n",
        )
    title = "Incident report August 12 2025 - LEAP hub outage"
    note = FlushEngine(vault).flush("log", title, "## Summary\n\nS.", when=date(2025, 8, 12))
    assert (vault / note.path).read_text().startswith(f"# {title}\n")
    other = FlushEngine(vault).flush("log", "Disk full", "## Summary\n\nS.", when=WHEN)
    assert (vault / other.path).read_text().startswith("# 2026-07-20 Disk full\n")
