"""A folder nested 1,200 deep (#45): walks are iterative and stop at `MAX_DEPTH` with one line per
skipped subtree, so no command, MCP tool or console page dies of a tree's shape (RecursionError
before), and an `ADR:` trailer committed meanwhile is still written."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from k0maru.cli.main import main
from k0maru.console.app import create_app
from k0maru.index.walker import MAX_DEPTH, VaultWalker
from k0maru.service.operations import Service
from tests.helpers import write

DEPTH = 1200


def deep_vault(root: Path) -> Path:
    """`root` with a note at the top, one 20 folders down and one 1,200 folders down."""
    write(root, "top.md", "# Top\n\nThe lease renews every minute. ![[lease.png]]\n")
    write(root, "/".join(["s"] * 20) + "/shallow.md", "# Shallow\n\nLease notes, twenty down.\n")
    here = os.open(root, os.O_RDONLY)
    try:  # one folder at a time, relative to the last: the full path is too long for one call
        for _ in range(DEPTH):
            os.mkdir("d", dir_fd=here)
            below = os.open("d", os.O_RDONLY, dir_fd=here)
            os.close(here)
            here = below
        fd = os.open("deep.md", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=here)
        os.write(fd, b"# Deep\n\nBuried lease.\n")
        os.close(fd)
    finally:
        os.close(here)
    return root


def flatten(root: Path) -> None:
    """Take the deep chain apart one folder at a time (shutil.rmtree, as pytest's clean-up,
    recurses)."""
    top, step = root / "d", 0
    while top.is_dir():
        below = top / "d"
        nxt = root / f"x{step}"
        if below.is_dir():
            below.rename(nxt)
        for leaf in top.iterdir():
            leaf.unlink()
        top.rmdir()
        top, step = nxt, step + 1


@pytest.fixture
def vault(vault: Path) -> Iterator[Path]:
    yield vault
    flatten(vault)


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "repo"
    flatten(tmp_path / "repo")


def test_the_walk_stops_at_its_depth_with_one_line(vault: Path) -> None:
    walker = VaultWalker(deep_vault(vault), ["**/*.md"], [])
    found = [e.rel for e in walker.walk()]
    assert sorted(found) == ["s/" * 20 + "shallow.md", "top.md"]
    assert walker.skips == [
        ("d/" * (MAX_DEPTH + 1), f"a folder nested deeper than {MAX_DEPTH} levels; not walked")
    ]


def test_commands_tools_and_pages_survive_a_deep_tree(
    vault: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("K0MARU_EMBED", "false")  # vectors would start the worker (a process)
    deep_vault(vault)
    for argv in (["scan", "--no-embed"], ["search", "lease"], ["conventions"]):
        assert main([*argv, "--vault", str(vault)]) == 0, argv
        out, err = capsys.readouterr()
        assert "RecursionError" not in out + err and "Traceback" not in out + err
        assert [line for line in err.splitlines() if "skipped" in line] in (
            [],
            [
                f"k0maru: warning: skipped {'d/' * (MAX_DEPTH + 1)}: a folder nested deeper than "
                f"{MAX_DEPTH} levels; not walked"
            ],
        ), argv
    body = write(vault.parent, "body.md", "Flushed beside a deep tree.\n")
    argv = ["flush", "--kind", "log", "--title", "Deep", "--body-file", str(body)]
    assert main([*argv, "--vault", str(vault)]) == 0, capsys.readouterr()
    with Service.open(str(vault)) as service:
        hits = service.recall("lease").hits  # what MCP recall_memory calls
        assert {"top.md", "s/" * 20 + "shallow.md"} <= {h.path for h in hits}
        client = create_app(service).test_client()
        # the search, a note whose attachment is looked for across the vault, the gaps page
        for url in ("/search?q=lease", "/notes/top.md", "/gaps"):
            assert client.get(url).status_code == 200, url


@pytest.mark.slow
def test_a_commit_in_a_deep_repository_writes_its_adr(repo: Path) -> None:
    from tests.githooks.test_git import GIT_ENV, git

    deep_vault(repo)
    git(repo, "init", "-q", "-b", "main")
    write(repo, ".gitignore", ".k0maru/\n")
    write(repo, "docs/adr/0001-start.md", "# ADR 0001: Start\n\nWe start.\n")
    assert main(["hooks", "install", "--vault", str(repo)]) == 0
    git(repo, "add", "top.md", ".gitignore", "docs")
    r = subprocess.run(
        ["git", "commit", "-q", "-m", "Add top\n\nADR: Keep leases short\n"],
        cwd=repo,
        env={**os.environ, **GIT_ENV},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert "skipped" not in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert (repo / "docs/adr/0002-keep-leases-short.md").is_file()
    assert main(["hooks", "status", "--vault", str(repo)]) == 0
