"""No file k0maru opens or writes can be a FIFO, socket or device, and `.k0maru` is a folder of the
vault's own, never a symbolic link out of it (#45)."""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from k0maru import agent_rules
from k0maru.cli.main import main
from k0maru.errors import K0maruError
from k0maru.layout import CONFIG_FILE
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


def test_read_note_on_a_symlink_loop_answers_one_line(vault: Path) -> None:
    """Before: pathlib's RuntimeError (a traceback in `show`, MCP and the console)."""
    write(vault, "a.md", "# A\n\nplain\n")
    os.symlink("loop2.md", vault / "loop1.md")
    os.symlink("loop1.md", vault / "loop2.md")
    with Vault.open(vault) as v:
        v.index(embed=False)
    with Service.open(str(vault)) as service, pytest.raises(K0maruError) as refused:
        service.read_note("loop1.md")
    assert "\n" not in str(refused.value) and "loop1.md" in str(refused.value)


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


def finishes(call: Callable[[], object], seconds: float = 30) -> object:
    """`call`'s result (or its exception), failing the test when it has not returned within
    `seconds`: an open that blocks on a FIFO."""
    box: list[tuple[bool, object]] = []

    def run() -> None:
        try:
            box.append((True, call()))
        except BaseException as exc:  # handed to the test's thread
            box.append((False, exc))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert box, "blocked on a FIFO"
    ok, value = box[0]
    if not ok:
        raise value  # type: ignore[misc]
    return value


def test_fifos_where_settings_rules_locks_and_cards_are_read_never_block(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write(vault, "a.md", "# A\n\nplain\n")
    (vault / ".k0maru").mkdir()
    os.mkfifo(vault / "AGENTS.md")  # a rules file the loadout quotes
    os.mkfifo(vault / ".k0maru" / worker.LOCK)
    with Service.open(str(vault)) as service:
        loadout = finishes(lambda: service.loadout(800))
    assert not any(s.source == "AGENTS.md" for s in loadout.sections)  # type: ignore[attr-defined]
    assert finishes(lambda: worker.running(vault)) is False
    # the settings k0maru reads for every command: one line, exit 2, nothing hangs
    os.mkfifo(vault / ".k0maru" / CONFIG_FILE)
    assert finishes(lambda: main(["status", "--vault", str(vault)])) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and CONFIG_FILE in err, err
    # Claude Code's settings, read by the agent hook: the rules are unknown, so no decision
    claude = tmp_path / "claude"
    claude.mkdir()
    os.mkfifo(claude / "settings.json")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    with pytest.raises(agent_rules.Unreadable):
        finishes(lambda: agent_rules.load(str(vault)))
