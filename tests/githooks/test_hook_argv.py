"""The installed hooks' call (`python -m k0maru hooks run ...`) is answered without the command
line's parser (#44); anything it does not understand is left to the command line, so errors read the
same."""

from __future__ import annotations

from pathlib import Path

import pytest

from k0maru.githooks.run import run_argv
from k0maru.layout import STATE_DIR


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["nonsense"],
        ["reindex", "--hook", "pre-push"],
        ["reindex", "--json"],
        ["reindex", "--vault=elsewhere"],
        ["reindex", "--hook", "post-commit", "--hook", "post-merge"],
        ["adr", "--help"],
    ],
)
def test_arguments_it_does_not_know_go_to_the_command_line(argv: list[str]) -> None:
    assert run_argv(argv) is None


def test_a_hook_call_runs_the_reindex_step(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(
        "K0MARU_HOOK_EMBED", "off"
    )  # no worker process: the request is only recorded
    (vault / STATE_DIR).mkdir()
    argv = ["reindex", "abc", "def", "1", "--hook", "post-checkout", "--vault", str(vault)]
    assert run_argv(argv) == 0
    assert (vault / STATE_DIR / "reindex-wanted").exists()
    log = (vault / STATE_DIR / "hooks.log").read_text()
    assert "reindex hook=post-checkout: left to the next command" in log


def test_the_hook_module_leaves_the_command_line_unimported() -> None:
    for heavy in ("k0maru.cli.main", "argparse", "dataclasses", "tempfile"):
        assert heavy not in _imports_of("k0maru.githooks.run"), heavy


def _imports_of(module: str) -> set[str]:
    """The modules that importing `module` imports at its top level, following k0maru's own modules
    through their source (the standard library's own imports are not followed)."""
    import ast
    import importlib.util

    seen: set[str] = set()
    todo = [module]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.origin or not spec.origin.endswith(".py"):
            continue
        if not name.startswith("k0maru"):
            continue  # the standard library's own imports are not followed
        tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
        for node in tree.body:  # top-level imports only: those inside functions run on use
            if isinstance(node, ast.Import):
                todo += [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                todo.append(node.module)
    return seen
