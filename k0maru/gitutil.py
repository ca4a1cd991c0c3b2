"""The one place that knows git: the enclosing repository, the current branch, the hooks folder, and the
files that changed between two HEADs, HEAD's commit. Plain file reads where they suffice, else the `git`
command (a few ms each; no library import on the hooks' path)."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

NULL_SHA = "0" * 40


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


def head_sha(repo: Path) -> str | None:
    """HEAD's commit sha from the files in .git (no subprocess); None where it cannot be read."""
    git_dir = repo / ".git"
    try:
        head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
        if not head.startswith("ref: "):
            return head or None
        ref = head[5:]
        loose = git_dir / ref
        if loose.is_file():
            return loose.read_text(encoding="utf-8").strip() or None
        for line in (git_dir / "packed-refs").read_text(encoding="utf-8").splitlines():
            if line.endswith(" " + ref):
                return line.split(" ", 1)[0]
    except OSError:
        return None
    return None


def hooks_dir(repo: Path) -> Path:
    out = subprocess.run(["git", "rev-parse", "--git-path", "hooks"], cwd=repo, capture_output=True, text=True)
    path = Path(out.stdout.strip()) if out.returncode == 0 and out.stdout.strip() else Path(".git/hooks")
    return path if path.is_absolute() else repo / path


def git(repo: Path, *args: str) -> str | None:
    """stdout of a git command in `repo`, None when it fails (unknown ref, no reflog, not a repository)."""
    out = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, errors="replace",
                         stdin=subprocess.DEVNULL)
    return out.stdout if out.returncode == 0 else None


def _resolve(repo: Path, ref: str | None) -> str | None:
    if not ref or ref == NULL_SHA:
        return None
    out = git(repo, "rev-parse", "--verify", "-q", f"{ref}^{{commit}}")
    return out.strip() or None if out else None


def head_range(repo: Path, hook: str | None, args: list[str]) -> tuple[str | None, str | None]:
    """(previous HEAD, new HEAD) for the hook that fired; previous None means 'unknown'."""
    env_from, env_to = os.environ.get("PRE_COMMIT_FROM_REF"), os.environ.get("PRE_COMMIT_TO_REF")
    new = _resolve(repo, "HEAD")
    if env_from and env_to:
        return _resolve(repo, env_from), _resolve(repo, env_to) or new
    if hook == "post-checkout" and len(args) >= 2:
        return _resolve(repo, args[0]), _resolve(repo, args[1]) or new
    pre_commit_merge = hook is None and os.environ.get("PRE_COMMIT_IS_SQUASH_MERGE") is not None
    pre_commit_rebase = hook is None and os.environ.get("PRE_COMMIT_REWRITE_COMMAND") == "rebase"
    rebase = hook == "post-rewrite" and (args[:1] == ["rebase"] or not args)
    if hook == "post-merge" or rebase or pre_commit_merge or pre_commit_rebase:
        orig = _resolve(repo, "ORIG_HEAD")
        if orig and orig != new:
            return orig, new
    return _resolve(repo, "HEAD@{1}"), new


def _parents(repo: Path, sha: str) -> list[str]:
    out = git(repo, "rev-list", "--parents", "-n", "1", sha) or ""
    return out.split()[1:]


def _names(out: str | None) -> list[str]:
    return sorted({p for p in (out or "").split("\0") if p})


def changed_files(repo_dir: Path, hook: str | None, args: list[str]
                  ) -> tuple[str | None, str | None, list[str] | None]:
    """(previous HEAD, new HEAD, repo-relative paths that differ between them, both sides of renames).

    Paths None means "cannot tell" (first commit, no reflog): the caller falls back to a full scan.
    """
    old, new = head_range(repo_dir, hook, args)
    if new is None:
        return old, new, None
    if old is None:  # a root commit: all of its tree; otherwise unknown
        return old, new, None if _parents(repo_dir, new) else _names(git(repo_dir, "ls-tree", "-r", "-z", "--name-only", new))
    if old == new:
        return old, new, []
    out = git(repo_dir, "diff", "--name-only", "-z", "--no-renames", old, new)
    return old, new, None if out is None else _names(out)


@dataclass(frozen=True, slots=True)
class Commit:
    sha: str
    author: str
    email: str
    date: str  # ISO 8601
    message: str
    files: list[str]

    @property
    def summary(self) -> str:
        return self.message.strip().split("\n", 1)[0]


def head_commit(repo: Path) -> Commit | None:
    """HEAD with its message and the paths it changed (against its first parent; all for a root commit)."""
    out = git(repo, "log", "-1", "--format=%H%x00%an%x00%ae%x00%cI%x00%B", "HEAD")
    if not out:
        return None
    sha, author, email, date, message = out.split("\0", 4)
    parents = _parents(repo, sha)
    files = _names(git(repo, "diff", "--name-only", "-z", "--no-renames", parents[0], sha) if parents
                   else git(repo, "ls-tree", "-r", "-z", "--name-only", sha))
    return Commit(sha, author, email, date, message, files)
