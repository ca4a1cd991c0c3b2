"""`k0maru loadout --budget N` with N too small for any section (issue #57): one line naming the
least budget that carries one, not a bare head."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from k0maru.cli.main import main
from tests.helpers import write

GUIDE = "# Contributing\n\n## Testing\n\nAlways run `make test` before you open a pull request.\n"


@pytest.fixture
def project(vault: Path) -> Path:
    write(vault, ".k0maru/config.toml", "embed = false\n")
    write(vault, "CONTRIBUTING.md", GUIDE)
    return vault


def test_a_budget_too_small_for_any_section_names_the_least_that_carries_one(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["loadout", "--vault", str(project), "--budget", "50"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    line = err.strip().splitlines()[-1]
    assert line.startswith("k0maru: error: 50 tokens carry no section")
    least = int(line.rsplit(" ", 1)[1])
    assert main(["loadout", "--vault", str(project), "--json", "--budget", str(least)]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert "make test" in answer["sections"][0]["text"]
    assert main(["loadout", "--vault", str(project), "--budget", str(least - 1)]) == 2


def test_a_vault_with_nothing_to_carry_still_answers(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(vault, ".k0maru/config.toml", "embed = false\n")
    assert main(["loadout", "--vault", str(vault), "--budget", "50"]) == 0
    assert capsys.readouterr().out.startswith("loadout of ")
