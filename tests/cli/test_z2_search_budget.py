"""`search --budget N` too small for any hit says so in words of no one surface (the CLI's flag is
`--budget`, the MCP parameter `token_budget`), with the least budget that carries the first
hit."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from k0maru.cli.main import main
from k0maru.service.operations import Service
from k0maru.service.session import VaultSession
from k0maru.wiring.vault import Vault
from tests.helpers import write


def _search(vault: Path, capsys: pytest.CaptureFixture[str], budget: int) -> tuple[str, str]:
    argv = ["search", "harbor", "eviction", "--mode", "bm25", "--vault", str(vault)]
    assert main([*argv, "--budget", str(budget)]) == 0
    got = capsys.readouterr()
    return got.out, got.err


def test_a_budget_too_small_names_the_flag_and_the_least_that_fits(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(vault, ".k0maru/config.toml", "embed = false\n")
    write(
        vault, "harbor.md", "# Harbor\n\nHarbor eviction runs nightly. " + "More words here. " * 60
    )
    out, err = _search(vault, capsys, 40)
    found = re.search(r"a budget of 40 tokens is too small for any hit; the first takes (\d+)", err)
    assert found and "token_budget" not in err + out, err
    least = int(found.group(1))
    assert "harbor.md" in _search(vault, capsys, least)[0]
    assert "harbor.md" not in _search(vault, capsys, least - 1)[0]
    with Service(VaultSession(Vault.open(vault))) as svc:  # the MCP's words are the same
        said = svc.recall("harbor eviction", mode="bm25", token_budget=40).warnings
    assert f"a budget of 40 tokens is too small for any hit; the first takes {least}" in said
