"""Rules never reach outside the vault or block on a special file (#32 items 4, 5, 7), in-process:
each refusal is one warning line and the kind falls back to the layout."""

from __future__ import annotations

import os
from pathlib import Path

from k0maru.notes.conventions import ConventionSniffer
from tests.helpers import write


def test_rules_pointing_out_of_the_vault_are_refused(tmp_path: Path) -> None:
    root, outside = tmp_path / "vault", tmp_path / "outside"
    write(outside, "RULES.md", "- card: cards\n")
    write(root, "docs/adr/0001-start.md", "# Start\n")
    (root / "docs/link").symlink_to(outside)
    (root / "AGENTS.md").symlink_to(outside / "RULES.md")
    write(root, "CONVENTIONS.md", "- adr: ../outside\n- log: docs/link\n- card template: ../x.md\n")
    conv = ConventionSniffer(root).sniff()
    assert conv.rules["adr"].folder == "docs/adr" and conv.rules["log"].folder == "logs"
    assert conv.rules["card"].folder == "cards" and conv.rules["card"].template == {}
    assert [w.split(" (")[0] for w in conv.warnings] == [
        "AGENTS.md: not read as rules",
        "CONVENTIONS.md:1: `- adr: ../outside` refused",
        "CONVENTIONS.md:2: `- log: docs/link` refused",
        "CONVENTIONS.md:3: template '../x.md' refused",
    ]


def test_a_fifo_or_a_nul_byte_in_the_rules_is_one_line(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "AGENTS.md")  # opened without blocking, never read
    write(tmp_path, "CONVENTIONS.md", "- card template: templates/ca\x00rd.md\n")
    conv = ConventionSniffer(tmp_path).sniff()
    assert conv.rule_files == ["CONVENTIONS.md"]
    assert conv.warnings == [
        "CONVENTIONS.md:1: template 'templates/ca\\x00rd.md' refused (a NUL byte in the path)"
    ]


def test_an_absolute_adr_folder_is_refused_not_read_inside_the_vault(tmp_path: Path) -> None:
    write(tmp_path, "docs/adr/0001-start.md", "# Start\n")
    write(tmp_path, "CONVENTIONS.md", "- adr: /srv/adr\n")
    conv = ConventionSniffer(tmp_path).sniff()
    assert conv.rules["adr"].folder == "docs/adr"  # from the layout, not `srv/adr` in the vault
    assert conv.warnings == [
        "CONVENTIONS.md:1: `- adr: /srv/adr` refused (an absolute path; name a folder relative "
        "to the vault); the adr folder is taken from the layout instead"
    ]
