"""`k0maru log list` keeps each log on one row: a command holding newlines (`python3 -c '…'`)
shows them escaped (`\\x0a`), as other one-line fields do."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from k0maru.cli.main import main
from k0maru.offload import records
from k0maru.wiring.vault import Vault
from tests.service.test_damage import offload


def test_log_list_shows_a_multiline_command_on_one_row(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = offload(vault, "n1")  # its record, then the same with a multi-line command
    rec = dataclasses.replace(rec, node_id="n2", command="python3 -c '\nimport sys\nsys.exit(3)'")
    with Vault.open(vault, embed=False) as v:
        records.save(v.store, rec)
    records.write_sidecar(vault, rec)
    capsys.readouterr()
    assert main(["log", "list", "--vault", str(vault)]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert len(rows) == 2 and rows[0].endswith("python3 -c '\\x0aimport sys\\x0asys.exit(3)'"), rows
