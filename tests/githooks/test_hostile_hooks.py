"""Hostile input to the git hooks, with real git and the installed plain hooks (#32 items 4, 5, 7,
10, 11): a FIFO among the ADRs, rules that point out of the vault, $K0MARU_VAULT elsewhere, a NUL
byte in a template path, control characters in a trailer, and ADR trailers that arrive by merge or
pull."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from k0maru.index.markdown import hash_bytes
from tests.githooks import test_git
from tests.githooks.test_git import GIT_ENV, git
from tests.helpers import K0, write

pytestmark = pytest.mark.slow
repo = test_git.repo  # the fixture: a repository with notes and docs/adr/0001-start.md


def commit(
    repo: Path, message: str, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """`git commit` with the hooks, failing the test (not hanging it) if git does not return."""
    return subprocess.run(
        ["git", "commit", "-q", "-m", message],
        cwd=repo,
        env={**os.environ, **GIT_ENV, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=True,
    )


def test_a_fifo_among_the_adrs_never_hangs_git_commit(repo: Path, k0: K0) -> None:
    k0("hooks", "install", "--vault", str(repo))
    os.mkfifo(repo / "docs/adr/0002-pipe.md")
    os.mkfifo(repo / "AGENTS.md")
    write(repo, "src/a.py", "A = 1\n")
    git(repo, "add", "src/a.py")
    r = commit(repo, "Add a\n\nADR: Keep A at one\n")
    assert "ADR written: docs/adr/0003-keep-a-at-one.md" in r.stderr
    assert "Traceback" not in r.stderr


def test_rules_folder_out_of_the_vault_is_refused_with_one_line(repo: Path, k0: K0) -> None:
    """`- adr: ../x` with an ADR there that holds this decision: before, the hook rewrote it."""
    k0("hooks", "install", "--vault", str(repo))
    outside = repo.parent / "x"
    key = hash_bytes(b"Cache auth tokens\nCache tokens\n\n")
    planted = f"---\ncommit: {'0' * 40}\ndecision_key: {key}\n---\n# Someone else's file\n"
    write(outside, "0007-cache-auth-tokens.md", planted)
    write(repo, "AGENTS.md", "# Rules\n\n- adr: ../x\n")
    git(repo, "add", "AGENTS.md")
    r = commit(repo, "Cache tokens\n\nADR: Cache auth tokens\n")
    assert (outside / "0007-cache-auth-tokens.md").read_text() == planted
    assert sorted(p.name for p in outside.iterdir()) == ["0007-cache-auth-tokens.md"]
    assert (repo / "docs/adr/0002-cache-auth-tokens.md").is_file()
    refused = [line for line in r.stderr.splitlines() if "refused" in line]
    assert refused == [
        "k0maru: AGENTS.md:3: `- adr: ../x` refused (outside the vault); "
        "the adr folder is taken from the layout instead"
    ]
    shown = k0("conventions", "--vault", str(repo), "--json")
    assert json.loads(shown.stdout)["kinds"]["adr"]["folder"] == "docs/adr"


def test_k0maru_vault_outside_the_repository_is_ignored_by_hooks(repo: Path, k0: K0) -> None:
    k0("hooks", "install", "--vault", str(repo))
    elsewhere = repo.parent / "elsewhere"
    elsewhere.mkdir()
    write(repo, "src/b.py", "B = 2\n")
    git(repo, "add", "src/b.py")
    commit(repo, "Add b\n\nADR: Keep B at two\n", env={"K0MARU_VAULT": str(elsewhere)})
    assert list(elsewhere.iterdir()) == []
    assert (repo / "docs/adr/0002-keep-b-at-two.md").is_file()
    inside = repo / "notes"  # a folder inside the repository is still honoured
    write(repo, "src/c.py", "C = 3\n")
    git(repo, "add", "src/c.py")
    commit(repo, "Add c\n\nADR: Keep C at three\n", env={"K0MARU_VAULT": str(inside)})
    assert (inside / "docs/adr").is_dir()


def test_nul_byte_in_a_template_path_is_one_line(repo: Path, k0: K0) -> None:
    k0("hooks", "install", "--vault", str(repo))
    write(repo, "AGENTS.md", "- card template: templates/ca\x00rd.md\n- adr: docs/adr\n")
    r = k0("conventions", "--vault", str(repo))
    assert r.returncode == 0 and "Traceback" not in r.stderr
    assert [line for line in r.stderr.splitlines() if "warning" in line] == [
        "k0maru: warning: AGENTS.md:1: template 'templates/ca\\x00rd.md' refused "
        "(a NUL byte in the path)"
    ]
    r = k0("flush", "--vault", str(repo), "--kind", "card", "--title", "A card", input="Body.\n")
    assert r.returncode == 0 and "Traceback" not in r.stderr
    assert r.stdout.startswith("created: notes/a-card.md")
    git(repo, "add", "AGENTS.md")
    r = commit(repo, "Rules\n\nADR: Keep rules in AGENTS\n")
    assert "ADR written: docs/adr/0002-keep-rules-in-agents.md" in r.stderr
    assert "Traceback" not in r.stderr


def test_control_characters_in_a_trailer_never_reach_a_title_or_terminal(
    repo: Path, k0: K0
) -> None:
    k0("hooks", "install", "--vault", str(repo))
    write(repo, "src/d.py", "D = 4\n")
    git(repo, "add", "src/d.py")
    commit(repo, "Add d\n\nADR: Use \x1b[31mred\x1b[0m \x01quokka cache\n")
    adr = repo / "docs/adr/0002-use-31mred-0m-quokka-cache.md"
    text = adr.read_text()
    assert "\x1b" not in text and "\x01" not in text
    title = next(line for line in text.splitlines() if "quokka cache" in line)
    assert title.endswith("Use [31mred[0m quokka cache")  # the record's own heading form
    r = k0("search", "--vault", str(repo), "--mode", "bm25", "quokka")
    assert r.returncode == 0 and "quokka" in r.stdout
    assert "\x1b" not in r.stdout and "\x01" not in r.stdout
    write(repo, "AGENTS.md", "- log naming: `YYYY-MM-DD-title.md` \x1b]0;pwned\x07\x1b[2J\n")
    r = k0("conventions", "--vault", str(repo))
    assert r.returncode == 0 and "YYYY-MM-DD-title.md" in r.stdout and "]0;pwned" in r.stdout
    assert not any(c in r.stdout for c in "\x1b\x07\x01")


def test_adr_trailers_arriving_by_pull_and_merge_write_adrs(
    repo: Path, k0: K0, tmp_path: Path
) -> None:
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    k0("hooks", "install", "--vault", str(clone))
    write(repo, "src/e.py", "E = 5\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "Add e\n\nADR: Keep E at five\n")  # the origin has no hooks
    git(repo, "commit", "-q", "--allow-empty", "-m", "Later, no trailer")
    r = git(clone, "pull", "-q", "--no-rebase", "origin", "main")  # a fast-forward
    assert "ADR written: docs/adr/0002-keep-e-at-five.md" in r.stderr
    git(repo, "commit", "-q", "--allow-empty", "-m", "Split\n\nADR: Split the E module\n")
    write(clone, "notes/local.md", "# Local\n")
    git(clone, "add", "notes/local.md")
    git(clone, "commit", "-qm", "Local work")
    r = git(clone, "pull", "-q", "--no-rebase", "origin", "main")  # a true merge
    assert git(clone, "rev-list", "--parents", "-n1", "HEAD").stdout.count(" ") == 2
    assert "ADR written: docs/adr/0003-split-the-e-module.md" in r.stderr
    r = git(clone, "merge", "-q", "origin/main")  # nothing new: nothing written again
    assert "ADR" not in r.stderr


def test_pre_commits_post_merge_stage_writes_the_merged_adrs(
    repo: Path, k0: K0, tmp_path: Path
) -> None:
    """pre-commit runs `k0maru hooks run reindex` with no hook name; its post-merge stage is known
    by the PRE_COMMIT_IS_SQUASH_MERGE it sets."""
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    git(repo, "commit", "-q", "--allow-empty", "-m", "Pool\n\nADR: Pool the database connections\n")
    git(repo, "commit", "-q", "--allow-empty", "-m", "Later, no trailer")
    git(clone, "pull", "-q", "--no-rebase", "origin", "main")  # no hooks installed in the clone
    env = {**GIT_ENV, "PRE_COMMIT_IS_SQUASH_MERGE": "0"}
    r = k0("hooks", "run", "reindex", cwd=clone, env=env)
    assert r.returncode == 0
    assert "ADR written: docs/adr/0002-pool-the-database-connections.md" in r.stderr
