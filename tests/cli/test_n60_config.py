"""A bad setting's error names the source that set it: the environment variable (which overrides
the config file), the config file, or the flag (#60, n)."""

from __future__ import annotations

from pathlib import Path

import pytest

from k0maru.cli.main import main
from tests.helpers import write


def error(capsys: pytest.CaptureFixture[str], vault: Path, *flags: str) -> str:
    capsys.readouterr()
    assert main(["status", "--vault", str(vault), *flags]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in lines[0], lines
    return lines[0]


def test_a_bad_embed_value_names_the_environment_variable(
    vault: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write(vault, ".k0maru/config.toml", "embed = true\n")
    monkeypatch.setenv("K0MARU_EMBED", "maybe")
    line = error(capsys, vault)
    assert "invalid config key 'embed'" in line
    assert "set by the environment variable K0MARU_EMBED='maybe'" in line
    assert "which overrides" in line and "config.toml" in line


def test_a_bad_config_key_names_the_file_alone(
    vault: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("K0MARU_EMBED", raising=False)
    write(vault, ".k0maru/config.toml", 'embed = "maybe"\n')
    line = error(capsys, vault)
    assert f"set in the config file {vault / '.k0maru' / 'config.toml'}" in line
    assert "K0MARU_" not in line


def test_a_bad_glob_names_the_flag(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(vault, "a.md", "# A\n")
    capsys.readouterr()
    assert main(["scan", "--vault", str(vault), "--include", "[z-a]"]) == 2
    err = capsys.readouterr().err
    assert "set by the command-line flag --include" in err and "K0MARU_" not in err
