"""The folders the vault's own rules name for each kind of note (adr-tools' `.adr-dir`, a rules
file's `adr: docs/decisions`), as the conventions read them: the index's scanner takes them to
decide the kind of the notes there (`index/kind_rules.py`), so the index, the conventions and
`--kind` agree (issue #60)."""

from __future__ import annotations

import os
from pathlib import Path

from k0maru.index.kind_rules import ADR_DIR, DAILY_NOTES, RULE_FILES, folder_kinds


def named_kind_folders(root: Path) -> dict[str, str]:
    """folder -> kind, read from the rules files and tools' settings alone (no walk); none where
    they cannot be read (then the folders' names decide)."""
    if not any(os.path.lexists(root / name) for name in (*RULE_FILES, ADR_DIR, DAILY_NOTES)):
        return {}  # no rule to read: the conventions' module (30-48 ms to import) is not needed
    from k0maru.notes.conventions import ConventionSniffer

    try:
        rules, _ = ConventionSniffer(root)._explicit_rules()
    except Exception:  # rules that cannot be read name no folder
        return {}
    return folder_kinds({kind: rule.folder for kind, rule in rules.items()})
