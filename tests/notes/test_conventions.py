"""The conventions a flush follows, as a long-running process keeps them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

from tests.helpers import until

if TYPE_CHECKING:
    from k0maru.notes.conventions import Conventions


def test_a_server_flush_never_waits_for_a_stale_sniff(tmp_path: Path) -> None:
    """Past their time to live, the conventions found last still serve a flush while a thread sniffs
    them again; only a process's first flush sniffs in line."""
    import time

    from k0maru.wiring.vault import CONVENTIONS_TTL_S, Vault

    root = tmp_path / "v"
    (root / "decisions").mkdir(parents=True)
    (root / "decisions" / "a.md").write_text("# A\n", encoding="utf-8")
    vault = Vault.open(root, embed=False)
    first = vault.conventions()
    assert first.rules["decision"].folder == "decisions"
    (root / "adr").mkdir()
    vault._conventions = (time.monotonic() - CONVENTIONS_TTL_S - 1, first)
    assert vault.conventions() is first  # served as it was, at once
    assert until(lambda: cast("tuple[float, Conventions]", vault._conventions)[1] is not first), (
        "never sniffed again"
    )
    assert vault.conventions() is not first
