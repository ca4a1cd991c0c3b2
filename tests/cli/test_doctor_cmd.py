"""`k0maru doctor` in-process: sound, damage named with what to run, `--fix` repairs it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from k0maru.cli.main import main
from k0maru.index import db
from k0maru.index.store import db_path
from tests.helpers import write
from tests.index.test_integrity import NAN, indexed


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_doctor_names_damage_and_fix_repairs_it(
    vault: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("K0MARU_EMBED", "false")
    indexed(vault)
    code, out, _ = run(capsys, "doctor", "--vault", str(vault))
    assert code == 0 and "sound" in out
    conn = db.connect(db_path(vault))
    conn.execute(f"UPDATE vec_chunks SET embedding = x'{NAN}' WHERE rowid = 2")
    conn.close()
    code, _, err = run(capsys, "doctor", "--vault", str(vault))
    assert code == 1 and "1 vector(s) are damaged" in err and "doctor --fix" in err
    code, out, _ = run(capsys, "doctor", "--fix", "--json", "--vault", str(vault))
    report = json.loads(out)
    assert code == 0 and report["repaired"] and report["sound"]
    code, out, _ = run(capsys, "doctor", "--vault", str(vault))
    assert code == 0 and "sound" in out


def test_doctor_without_an_index_says_so_and_creates_none(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(vault, "a.md", "# A\n")
    code, _, err = run(capsys, "doctor", "--vault", str(vault))
    assert code == 2 and "no index" in err and "Traceback" not in err
    assert not db_path(vault).exists()
