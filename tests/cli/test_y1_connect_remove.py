"""`k0maru connect HOST --remove` says what it removed: k0maru's entry from a file that keeps the
user's other servers and comments, or the file itself when it held nothing else."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from k0maru.cli.main import main
from tests.cli.test_connect import USER_FILES
from tests.helpers import write


def removal(vault: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> list[str]:
    assert main(["connect", "vscode", "--remove", "--vault", str(vault), *extra]) == 0
    return capsys.readouterr().out.splitlines()


def test_removing_from_a_file_the_user_keeps_says_only_the_entry_went(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(vault, ".vscode/mcp.json", USER_FILES["vscode"])
    assert main(["connect", "vscode", "--vault", str(vault)]) == 0
    capsys.readouterr()
    said = removal(vault, capsys)
    assert said == [f"removed k0maru's entry from {path} (the rest of the file kept)"]
    assert path.read_text() == USER_FILES["vscode"]
    assert removal(vault, capsys) == [f"absent: no k0maru entry in {path}; nothing removed"]
    assert main(["connect", "vscode", "--vault", str(vault)]) == 0
    capsys.readouterr()
    row = json.loads(removal(vault, capsys, "--json")[0])
    assert (row["outcome"], row["file_removed"]) == ("removed", False) and path.is_file()


def test_removing_the_file_connect_made_says_the_file_went(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["connect", "vscode", "--vault", str(vault)]) == 0
    capsys.readouterr()
    path = vault / ".vscode" / "mcp.json"
    assert removal(vault, capsys) == [f"removed: {path} (it held only k0maru's entry)"]
    assert not path.exists()
