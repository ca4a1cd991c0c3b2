"""No file k0maru opens or writes can be a FIFO, socket or device, and `.k0maru` is a folder of the
vault's own, never a symbolic link out of it (#45)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from k0maru.cli.main import main
from k0maru.errors import K0maruError
from k0maru.service import worker
from k0maru.service.operations import Service
from k0maru.wiring.vault import Vault
from tests.helpers import write


def test_read_note_on_a_note_replaced_by_a_fifo_answers_one_line(vault: Path) -> None:
    write(vault, "a.md", "# A\n\nplain\n")
    with Vault.open(vault) as v:
        v.index(embed=False)
    (vault / "a.md").unlink()
    os.mkfifo(vault / "a.md")
    with Service.open(str(vault)) as service, pytest.raises(K0maruError) as refused:
        service.read_note("a.md")  # before: blocked for ever on open()
    assert "\n" not in str(refused.value) and "a.md" in str(refused.value)


def test_a_fifo_at_the_hooks_log_is_refused_without_blocking(vault: Path) -> None:
    (vault / ".k0maru").mkdir()
    os.mkfifo(vault / ".k0maru" / worker.LOG)
    worker.log_line(vault, "a hook ran")  # before: blocked until something read the FIFO


def test_a_k0maru_symlink_out_of_the_vault_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    victim, vault = tmp_path / "victim", tmp_path / "vault"
    victim.mkdir()
    write(vault, "a.md", "# A\n")
    (vault / ".k0maru").symlink_to("../victim")
    assert main(["scan", "--no-embed", "--vault", str(vault)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "symbolic link" in err, err
    assert list(victim.iterdir()) == []
    worker.log_line(vault, "a hook ran")  # never raises, never writes there
    assert list(victim.iterdir()) == []


@pytest.mark.slow
def test_a_fifo_at_the_hooks_log_never_hangs_git_commit(tmp_path: Path) -> None:
    from tests.githooks.test_git import GIT_ENV, git

    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", "-b", "main", str(repo))
    write(repo, "a.md", "# A\n")
    assert main(["hooks", "install", "--vault", str(repo)]) == 0
    (repo / ".k0maru").mkdir(exist_ok=True)
    os.mkfifo(repo / ".k0maru" / worker.LOG)
    git(repo, "add", "a.md")
    subprocess.run(
        ["git", "commit", "-q", "-m", "Add a"],
        cwd=repo,
        env={**os.environ, **GIT_ENV},
        capture_output=True,
        timeout=60,  # before: git waited for a reader of the FIFO
        check=True,
    )
