"""What a front end shows of an error comes from its fields, not from cutting or matching its words
(issue #56): connect's states read `reason`, and the command line's "did you mean" for a choice
does not depend on how argparse words its refusal."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from k0maru import hosts
from k0maru.cli.main import main
from k0maru.errors import K0maruError


@pytest.fixture
def odd_vault(tmp_path: Path) -> Path:
    """A repository whose path holds a semicolon."""
    root = tmp_path / "notes;v1"
    root.mkdir()
    return root


def test_a_config_state_is_the_whole_reason(odd_vault: Path) -> None:
    (odd_vault / ".cursor" / "mcp.json").mkdir(parents=True)  # a folder where the file goes
    states = {host: state for host, _, state in hosts.configured(odd_vault)}
    assert states["cursor"] == f"{odd_vault / '.cursor' / 'mcp.json'} is not a regular file"


def test_a_hook_state_is_the_whole_reason(odd_vault: Path) -> None:
    (odd_vault / ".claude" / "settings.json").mkdir(parents=True)
    states = {host: state for host, _, state in hosts.hooks_configured(odd_vault)}
    assert states["claude-code"] == (
        f"{odd_vault / '.claude' / 'settings.json'} is not a regular file"
    )


def test_an_error_of_connect_has_its_hint_apart(odd_vault: Path) -> None:
    with pytest.raises(K0maruError) as caught:
        hosts.hook_file("cursor", odd_vault)
    assert caught.value.reason.startswith("cursor cannot run k0maru's command hook: Cursor's")
    assert caught.value.hint.startswith("the server's instructions ask the agent")


def test_a_mistyped_choice_gets_the_close_one(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["search", "x", "--mode", "hybird"])
    assert "k0maru search: error: unknown choice 'hybird'; did you mean 'hybrid'?" in (
        capsys.readouterr().err
    )
    with pytest.raises(SystemExit):
        main(["log", "lst"])
    assert "unknown choice 'lst'; did you mean 'list'?" in capsys.readouterr().err


def test_the_suggestion_does_not_read_argparse_s_words(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Python whose argparse words the refusal otherwise still gets the suggestion."""

    def reworded(self: argparse.ArgumentParser, action: argparse.Action, value: object) -> None:
        if action.choices is not None and value not in action.choices:
            raise argparse.ArgumentError(action, f"{value} is not one of them")

    monkeypatch.setattr(argparse.ArgumentParser, "_check_value", reworded)
    with pytest.raises(SystemExit):
        main(["search", "x", "--mode", "vectr"])
    assert "unknown choice 'vectr'; did you mean 'vector'?" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["search", "x", "--mode", "zzz"])
    assert "zzz is not one of them" in capsys.readouterr().err  # nothing close: argparse's line
