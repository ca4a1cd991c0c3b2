"""`k0maru offload` never changes a command's outcome: where nothing can be kept (no vault here, a
state folder that cannot be written, a broken index), the command runs as it would without k0maru,
with its own output and exit status, and at most one line on stderr, none for a quiet command. The
`k0maru-hook` rewrite of `cd /tmp/x && pytest -q t.py` (#38) is run beside the original with the
real pytest."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from k0maru.cli.main import main
from tests.helpers import write

BIN = Path(sys.executable).parent
FAILING = "def test_ok():\n    assert True\n\n\ndef test_broken():\n    assert 'lease' == 'leash'\n"


def sh(
    command: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    path = f"{BIN}{os.pathsep}{os.environ['PATH']}"
    full = {**os.environ, "PATH": path, "NO_COLOR": "1", **(env or {})}
    full.pop("K0MARU_VAULT", None)
    return subprocess.run(
        ["bash", "-c", command], cwd=cwd, env=full, capture_output=True, text=True, timeout=300
    )


def same_run(a: subprocess.CompletedProcess[str], b: subprocess.CompletedProcess[str]) -> bool:
    """The same exit status and output, pytest's timing line aside."""

    def text(s: str) -> list[str]:
        return [ln.split(" in ")[0] for ln in s.splitlines()]

    return a.returncode == b.returncode and text(a.stdout) == text(b.stdout)


@pytest.mark.slow
def test_a_test_command_outside_any_vault_runs_as_without_k0maru(tmp_path: Path) -> None:
    plain = tmp_path / "x"
    write(plain, "t.py", FAILING)
    original = sh(f"cd {plain} && pytest -q -p no:cacheprovider t.py", tmp_path)
    routed = sh(f"cd {plain} && k0maru offload -- pytest -q -p no:cacheprovider t.py", tmp_path)
    assert original.returncode == 1 and same_run(original, routed), routed.stderr
    assert routed.stderr == original.stderr  # a quiet command: not a word more
    assert not (plain / ".k0maru").exists()


@pytest.mark.slow
def test_a_long_output_outside_any_vault_adds_one_line(tmp_path: Path) -> None:
    loud = "seq 1 300; echo 'error: the last line' >&2; exit 3"
    original = sh(loud, tmp_path)
    routed = sh(f"k0maru offload -- bash -c {loud!r}", tmp_path)
    assert routed.returncode == 3 and routed.stdout == original.stdout
    extra = [ln for ln in routed.stderr.splitlines() if ln.startswith("k0maru")]
    assert len(extra) == 1 and "not a k0maru vault" in extra[0] and "Traceback" not in routed.stderr
    assert routed.stderr.replace(extra[0] + "\n", "") == original.stderr


@pytest.mark.slow
@pytest.mark.parametrize("broken", ["state-file", "index-garbage", "missing-vault"])
def test_a_vault_that_cannot_be_used_runs_the_command_as_it_is(tmp_path: Path, broken: str) -> None:
    vault = tmp_path / "v"
    write(vault, "t.py", FAILING)
    (vault / ".git").mkdir()
    if broken == "state-file":
        (vault / ".k0maru").write_text("not a folder")
    elif broken == "index-garbage":
        write(vault, ".k0maru/index.sqlite", "this is not a database " * 100)
    flag = f"--vault {tmp_path / 'gone'}" if broken == "missing-vault" else ""
    original = sh("pytest -q -p no:cacheprovider t.py", vault)
    routed = sh(f"k0maru offload {flag} -- pytest -q -p no:cacheprovider t.py", vault)
    assert same_run(original, routed), routed.stderr
    assert routed.stderr == original.stderr


@pytest.mark.slow
def test_the_hooks_rewrite_of_the_issue_repro_keeps_the_outcome(tmp_path: Path) -> None:
    """`cd /tmp/x && pytest -q t.py` from inside a project: the hook leaves it alone (x is in no
    vault), and its rewrite, were it made, would run the same."""
    from k0maru.agent_hook import answer

    plain, project = tmp_path / "x", tmp_path / "project"
    write(plain, "t.py", FAILING)
    (project / ".git").mkdir(parents=True)
    command = f"cd {plain} && pytest -q -p no:cacheprovider t.py"
    event = {"tool_name": "Bash", "cwd": str(project), "permission_mode": "default"}
    assert answer({**event, "tool_input": {"command": command}}) is None
    forced = f"set -o pipefail; {command} 2>&1 | k0maru offload"  # the hook's form
    original, routed = sh(command, project), sh(forced, project)
    assert original.returncode == 1 and same_run(original, routed)
    assert routed.stderr == original.stderr


class Stdin(io.TextIOWrapper):
    def isatty(self) -> bool:
        return False


def test_a_passed_through_offload_names_no_vault(
    capsys: pytest.CaptureFixture[str], vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A quiet output read from another folder reaches the agent as it was: no `k0maru: vault`
    line."""
    monkeypatch.setenv("K0MARU_EMBED", "0")
    monkeypatch.setattr("sys.stdin", Stdin(io.BytesIO(b"3 passed\n")))
    monkeypatch.chdir(vault.parent)
    rc = main(["offload", "--vault", str(vault)])
    out, err = capsys.readouterr()
    assert rc == 0 and out == "3 passed\n" and err == ""


def test_piped_output_outside_any_vault_passes_through(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("K0MARU_VAULT", raising=False)
    monkeypatch.setattr("sys.stdin", Stdin(io.BytesIO(b"ok\n")))
    monkeypatch.chdir(tmp_path)
    rc = main(["offload"])
    out, err = capsys.readouterr()
    assert rc == 0 and out == "ok\n" and err == ""
