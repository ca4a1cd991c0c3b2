"""`show NAME` as a second newcomer met it: a bare name several notes' file names answer to is
said in one line naming them (hyades' three `overview.md`), a path's tail names one, and a
Dendron note's frontmatter alias names it. In-process, no embeddings."""

from __future__ import annotations

from pathlib import Path

import pytest

from k0maru.cli.main import main
from tests.helpers import write


@pytest.fixture(autouse=True)
def lexical_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("K0MARU_EMBED", "0")
    monkeypatch.delenv("K0MARU_VAULT", raising=False)


def run(capsys: pytest.CaptureFixture[str], vault: Path, *argv: str) -> tuple[int, str, str]:
    try:
        rc = main([*argv, "--vault", str(vault)])
    except SystemExit as exc:
        rc = int(exc.code or 0)
    out, err = capsys.readouterr()
    return rc, out, err


def test_a_name_several_notes_share_is_said_and_a_path_tail_picks_one(
    capsys: pytest.CaptureFixture[str], vault: Path
) -> None:
    for folder in ("development", "operations/configuration", "operations/secret-management"):
        write(vault, f"docs/{folder}/overview.md", f"# Overview\n\nThe {folder} overview.\n")
    write(vault, "docs/guide/index.md", "# Guide\n\nThe guide's own page.\n")
    write(vault, "pages/layer-cache.md", "---\naliases: [cachebox, layer cache]\n---\n# L\nRAM\n")
    assert run(capsys, vault, "init")[0] == 0 and run(capsys, vault, "scan")[0] == 0
    rc, out, err = run(capsys, vault, "show", "overview")
    line = err.splitlines()[-1]
    assert rc != 0 and out == "" and "3 notes are named 'overview'" in line, err
    assert "'docs/operations/secret-management/overview.md'" in line and "Traceback" not in err
    rc, out, _ = run(capsys, vault, "show", "configuration/overview")
    assert rc == 0 and "The operations/configuration overview." in out
    rc, out, _ = run(capsys, vault, "show", "guide")  # a folder's index.md, the only `guide`
    assert rc == 0 and "The guide's own page." in out
    rc, out, err = run(capsys, vault, "show", "cachebox")
    assert rc == 0 and "RAM" in out, err


def test_the_root_note_of_a_name_is_the_one_meant(
    capsys: pytest.CaptureFixture[str], vault: Path
) -> None:
    write(vault, "overview.md", "# Overview\n\nThe root one.\n")
    write(vault, "docs/overview.md", "# Overview\n\nThe docs one.\n")
    assert run(capsys, vault, "init")[0] == 0 and run(capsys, vault, "scan")[0] == 0
    rc, out, err = run(capsys, vault, "show", "overview")
    assert rc == 0 and "The root one." in out, err
