"""Section order restored (#58): a family's own template (`rfc-template.md`) gives it, and a body's
section stands for the family's one written with other punctuation."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from k0maru.notes.flush import FlushEngine
from k0maru.notes.template import record_names, template_files

WHEN = date(2024, 3, 1)


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def heads(text: str) -> list[str]:
    return [line[3:] for line in text.splitlines() if line.startswith("## ")]


def test_a_familys_own_template_name_is_a_template_not_a_record() -> None:
    names = ["rfc-template.md", "kep_template.md", "use-template-engine.md", "a.md"]
    assert template_files(names) == ["kep_template.md", "rfc-template.md"]
    assert record_names(names) == ["a.md", "use-template-engine.md"]


def test_the_rfc_template_gives_the_order_of_a_shuffled_body(tmp_path: Path) -> None:
    write(
        tmp_path,
        "designs/rfc-template.md",
        "# Title\n\n## Motivation\n\nm\n\n## Proposal\n\np\n\n## Alternatives Considered\n\na\n"
        "\n## Open Questions\n\nq\n",
    )
    for n in (1, 2, 3):  # the records drift from their template: it still gives the order
        write(tmp_path, f"designs/r{n}.md", f"# R{n}\n\n## Background\n\nx\n\n## Notes\n\ny\n")
    body = (
        "## Open Questions\n\nQ.\n\n## Alternatives Considered\n\nA.\n\n"
        "## Proposal\n\nP.\n\n## Motivation\n\nM.\n"
    )
    result = FlushEngine(tmp_path).flush("adr", "Spread pods", body, when=WHEN)
    text = (tmp_path / result.path).read_text(encoding="utf-8")
    assert heads(text) == ["Motivation", "Proposal", "Alternatives Considered", "Open Questions"]


def test_a_section_spelt_with_other_commas_stands_for_the_familys(tmp_path: Path) -> None:
    for n in (1, 2, 3):
        write(
            tmp_path,
            f"text/000{n}-r{n}.md",
            f"# RFC-000{n}: R{n}\n\n## Summary\n\ns\n\n## Testing, Security, and Privacy\n\nt\n\n"
            "## Performance, Ergonomics, and Compatibility\n\np\n\n## Unresolved Questions\n\nu\n",
        )
    body = (
        "## Unresolved questions\n\nU.\n\n## Performance, ergonomics and compatibility\n\nP.\n\n"
        "## Summary\n\nS.\n\n## Testing, security and privacy\n\nT.\n"
    )
    result = FlushEngine(tmp_path).flush("adr", "Curves", body, when=WHEN)
    text = (tmp_path / result.path).read_text(encoding="utf-8")
    assert heads(text) == [
        "Summary",
        "Testing, security and privacy",
        "Performance, ergonomics and compatibility",
        "Unresolved questions",
    ]
