"""How a folder's record template is learnt (#39, third round): what a template file marks optional,
the frontmatter keys most records give, a record named like a template, a status kept under another
word."""

from datetime import date
from pathlib import Path

from k0maru.notes.flush import FlushEngine
from k0maru.notes.public_forms import MADR
from k0maru.notes.template import optional_sections
from tests.helpers import write

WHEN = date(2026, 7, 20)
MADR_TEMPLATE = (
    "# {short title}\n\n## Context and Problem Statement\n\n{Describe the context.}\n\n"
    "<!-- This is an optional element. Feel free to remove. -->\n## Decision Drivers\n\n"
    "* {driver 1}\n\n## Considered Options\n\n* {option 1}\n\n## Decision Outcome\n\n"
    'Chosen option: "{option 1}"\n\n'
    "<!-- This is an optional element. Feel free to remove. -->\n### Consequences\n\n* Good\n\n"
    "## Pros and Cons of the Options <!-- optional -->\n\n### {option 1}\n\n"
    "<!-- This is an optional element. Feel free to remove. -->\n{example}\n\n"
    "## More Information\n\n<!-- optional -->\n{links}\n"
)
SECTIONS = tuple(MADR.sections)  # MADR's own sections, in its order


def madr_vault(root: Path) -> None:
    write(root, "docs/decisions/adr-template.md", MADR_TEMPLATE)
    for n in (1, 2):
        body = "".join(f"## {s}\n\n{s} {n}.\n\n" for s in SECTIONS)
        write(root, f"docs/decisions/000{n}-d{n}.md", f"# D{n}\n\n{body}")


def test_the_sections_a_template_marks_optional() -> None:
    assert optional_sections(MADR_TEMPLATE) == [
        "Decision Drivers",
        "Pros and Cons of the Options",
        "More Information",
    ]


def test_an_optional_section_the_body_lacks_is_left_out(vault: Path) -> None:
    madr_vault(vault)
    body = (
        "## Context and Problem Statement\n\nWhy.\n\n## Decision Drivers\n\n* speed\n\n"
        "## Considered Options\n\n* X\n\n## Decision Outcome\n\nX.\n"
    )
    note = FlushEngine(vault).flush("adr", "Use X", body, when=WHEN)
    text = (vault / note.path).read_text()
    heads = [line for line in text.splitlines() if line.startswith("## ")]
    assert heads == [
        "## Context and Problem Statement",
        "## Decision Drivers",
        "## Considered Options",
        "## Decision Outcome",
    ]
    assert "optional" not in text  # no marker left over from the template


def test_a_required_template_section_keeps_its_placeholder_without_the_next_ones_marker(
    vault: Path,
) -> None:
    madr_vault(vault)
    note = FlushEngine(vault).flush("adr", "Use X", "## Decision Outcome\n\nX.\n", when=WHEN)
    text = (vault / note.path).read_text()
    assert "## Context and Problem Statement\n\n{Describe the context.}\n\n## Considered" in text


def test_a_section_title_with_a_comment_on_its_line_matches_the_body(vault: Path) -> None:
    madr_vault(vault)
    body = "## Decision Outcome\n\nX.\n\n## Pros and Cons of the Options\n\n### X\n\nfast\n"
    text = (vault / FlushEngine(vault).flush("adr", "Use X", body, when=WHEN).path).read_text()
    assert text.count("## Pros and Cons of the Options") == 1 and "<!--" not in text


def test_frontmatter_keeps_the_keys_most_records_give(vault: Path) -> None:
    """A key only the newest few records added (or one most dropped) is not the folder's form."""
    for n in range(1, 6):
        extra = "suite: \n" if n >= 4 else ""
        write(
            vault,
            f"text/000{n}-r{n}.md",
            f"---\nstage: accepted\nteams:\n{extra}---\n\n# R{n}\n\n## Summary\n\ns\n",
        )
    text = vault / FlushEngine(vault).flush("adr", "Use X", "## Summary\n\ns\n", when=WHEN).path
    # `teams:` left empty as the records leave it, and the blank line after the frontmatter kept
    assert text.read_text().startswith("---\nstage: accepted\nteams:\n---\n\n# Use X\n")


def test_a_record_whose_slug_starts_with_template_is_a_record(vault: Path) -> None:
    for n, slug in ((277, "alpha"), (278, "template-only-components"), (279, "beta")):
        write(vault, f"text/0{n}-{slug}.md", f"# R{n}\n\n## Summary\n\ns\n\n## Motivation\n\nm\n")
    write(vault, "text/0000-template.md", "# Title\n\n## Summary\n\n## Drawbacks\n\n")
    engine = FlushEngine(vault)
    note = engine.flush("adr", "Use X", "## Summary\n\ns\n\n## Motivation\n\nm\n", when=WHEN)
    assert note.path == "text/0280-use-x.md"
    rule = engine.conventions.rules["adr"]
    assert rule.record is not None and rule.record.learnt_from[-1] == "0000-template.md"
    assert "0278-template-only-components.md" in rule.record.learnt_from


def test_a_status_kept_under_another_word_starts_new_records(vault: Path) -> None:
    for n, status in ((1, "accepté"), (2, "mergé"), (3, "mergé")):
        write(
            vault,
            f"docs/decisions/ADR-00{n}-d{n}.md",
            f"# D{n}\n\n* Statut : {status}\n* Date : 2022-06-1{n}\n\n## Contexte\n\nc\n",
        )
    note = FlushEngine(vault).flush("adr", "Use X", "## Contexte\n\nc\n", when=WHEN)
    assert (
        (vault / note.path)
        .read_text()
        .startswith("# Use X\n\n* Statut : mergé\n* Date : 2026-07-20\n")
    )


def test_a_record_moved_elsewhere_is_not_a_record_to_learn_from(tmp_path: Path) -> None:
    """Stubs left where records were renamed (`This document was moved to [0052-x](./0052-x.md)`)
    give the family neither its names nor its form: the records they point to do."""
    for n in (1, 2, 3):
        text = f"## Proposal {n}\n\n* **Owners:**\n  * @a\n\n## Why\n\nWhy {n}.\n\n## How\n\nHow.\n"
        write(tmp_path, f"proposals/000{n}-p{n}.md", text)
        moved = f"> This document was moved to [000{n}-p{n}](./000{n}-p{n}.md)\n"
        write(tmp_path, f"proposals/2025-0{n}-01_p{n}.md", moved)
    result = FlushEngine(tmp_path).flush("adr", "New thing", "## How\n\nHow.\n\n## Why\n\nWhy.")
    assert result.path == "proposals/0004-new-thing.md"
    text = (tmp_path / result.path).read_text()
    assert not text.startswith("---")
    assert text.index("## Why") < text.index("## How")


def test_a_section_the_records_drop_goes_where_the_template_puts_it(tmp_path: Path) -> None:
    """A body's template section the records mostly leave out (MADR's `Decision Drivers`) is
    kept, in the template's place, whatever order the body gives."""
    write(tmp_path, "docs/decisions/adr-template.md", MADR_TEMPLATE)
    for n in (1, 2):
        body = f"## Context and Problem Statement\n\nC{n}.\n\n## Decision Outcome\n\nO{n}.\n"
        write(tmp_path, f"docs/decisions/000{n}-d{n}.md", f"# D{n}\n\n{body}")
    body = "## Decision Outcome\n\nO.\n\n## Decision Drivers\n\nD.\n\n## Context and Problem Statement\n\nC."
    path = FlushEngine(tmp_path).flush("adr", "Third", body, when=WHEN).path
    text = (tmp_path / path).read_text()
    heads = [x for x in text.split("\n") if x.startswith("## ")]
    assert heads == [
        "## Context and Problem Statement",
        "## Decision Drivers",
        "## Decision Outcome",
    ]


def test_sections_two_records_give_keep_their_order(tmp_path: Path) -> None:
    """Sections the family's chosen order leaves out but two or more records give are placed as
    most of those records place them, not in the body's order."""
    forms = [("Summary", "Design", "Risks"), ("Summary", "Design", "Risks"), ("Summary", "Notes")]
    forms += [("Summary", "Design", "Notes", "Risks")]
    for n, form in enumerate(forms, 1):
        text = "".join(f"## {s}\n\n{s} {n}.\n\n" for s in form)
        write(tmp_path, f"rfcs/000{n}-r{n}.md", f"# R{n}\n\n{text}")
    body = "## Risks\n\nR.\n\n## Notes\n\nN.\n\n## Summary\n\nS.\n\n## Design\n\nD."
    path = FlushEngine(tmp_path).flush("adr", "Fifth", body, when=WHEN).path
    heads = [x for x in (tmp_path / path).read_text().split("\n") if x.startswith("## ")]
    assert heads == ["## Summary", "## Design", "## Notes", "## Risks"]
