"""The one place that knows git: the enclosing repository, the current branch, the hooks folder and
HEAD's commit. Plain file reads where they suffice, else the `git` command (a few ms each; no
library import on the hooks' path)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import NamedTuple


def repo_root(start: Path) -> Path | None:
    """The nearest folder at or above `start` holding `.git` (a folder, or a worktree's file)."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def current_branch(repo: Path) -> str | None:
    """The checked-out branch's name, None when detached or not a repository."""
    try:
        ref = (repo / ".git" / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return ref.removeprefix("ref: refs/heads/") if ref.startswith("ref: refs/heads/") else None


def hooks_dir(repo: Path) -> Path:
    out = subprocess.run(
        ["git", "rev-parse", "--git-path", "hooks"], cwd=repo, capture_output=True, text=True
    )
    path = (
        Path(out.stdout.strip())
        if out.returncode == 0 and out.stdout.strip()
        else Path(".git/hooks")
    )
    return path if path.is_absolute() else repo / path


def git(repo: Path, *args: str) -> str | None:
    """stdout of a git command in `repo`, None when it fails (unknown ref, no reflog, not a
    repository)."""
    out = subprocess.run(
        ["git", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        errors="replace",
        stdin=subprocess.DEVNULL,
    )
    return out.stdout if out.returncode == 0 else None


def _parents(repo: Path, sha: str) -> list[str]:
    out = git(repo, "rev-list", "--parents", "-n", "1", sha) or ""
    return out.split()[1:]


def _names(out: str | None) -> list[str]:
    return sorted({p for p in (out or "").split("\0") if p})


class Commit(NamedTuple):  # not a dataclass: `dataclasses` is a slow import for the git hooks
    sha: str
    author: str
    email: str
    date: str  # ISO 8601
    message: str
    files: list[str]

    @property
    def summary(self) -> str:
        return self.message.strip().split("\n", 1)[0]


def head_commit(repo: Path, rev: str = "HEAD") -> Commit | None:
    """HEAD (or `rev`) with its message and the paths it changed (against its first parent; all for
    a root commit)."""
    out = git(repo, "log", "-1", "--format=%H%x00%an%x00%ae%x00%cI%x00%B", rev, "--")
    if not out:
        return None
    sha, author, email, date, message = out.split("\0", 4)
    parents = _parents(repo, sha)
    files = _names(
        git(repo, "diff", "--name-only", "-z", "--no-renames", parents[0], sha)
        if parents
        else git(repo, "ls-tree", "-r", "-z", "--name-only", sha)
    )
    return Commit(sha, author, email, date, message, files)


def amended_from(repo: Path, sha: str, depth: int = 50) -> str | None:
    """The commit that `git commit --amend` replaced by `sha`, as HEAD's reflog (its last `depth`
    entries) records it; None when `sha` was not made by an amend, or the reflog does not say."""
    out = git(repo, "reflog", "show", f"-n{depth}", "--format=%H %gs", "HEAD") or ""
    entries = [line.partition(" ") for line in out.splitlines()]
    for (new, _, what), (old, _, _) in zip(entries, entries[1:], strict=False):
        if new == sha and what.startswith("commit (amend)"):
            return old
    return None


def rewritten_from(repo: Path, sha: str, depth: int = 50) -> list[str]:
    """The commits that `sha` may have replaced: the one an amend replaced (`amended_from`), else
    those a rebase may have rewritten into it: ORIG_HEAD (the tip before the rebase) reaches them,
    HEAD does not, and they have `sha`'s author and author date (which a rebase keeps)."""
    amended = amended_from(repo, sha, depth)
    if amended is not None:
        return [amended]
    ident = "--format=%H %an <%ae> %ad"
    mine = (git(repo, "log", "-1", "--date=raw", ident, sha, "--") or "").partition(" ")[2].strip()
    left = git(
        repo, "log", "--date=raw", ident, "-n", str(depth), "ORIG_HEAD", "--not", "HEAD", "--"
    )
    lines = [line.partition(" ") for line in (left or "").splitlines()]
    return [old for old, _, who in lines if mine and who == mine and old != sha]
