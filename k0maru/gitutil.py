"""The one place that knows git: the enclosing repository, the current branch, the hooks folder, and the
files that changed between two HEADs. Plain file reads where they suffice; GitPython only for diffs."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

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


def _resolve(repo: Any, ref: str | None) -> str | None:
    if not ref or ref == NULL_SHA:
        return None
    try:
        return str(repo.commit(ref).hexsha)
    except Exception:  # noqa: BLE001 - unknown ref, empty reflog, shallow clone...
        return None


def head_range(repo: Any, hook: str | None, args: list[str]) -> tuple[str | None, str | None]:
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


def changed_files(repo_dir: Path, hook: str | None, args: list[str]
                  ) -> tuple[str | None, str | None, list[str] | None]:
    """(previous HEAD, new HEAD, repo-relative paths that differ between them, both sides of renames).

    Paths None means "cannot tell" (first commit, no reflog): the caller falls back to a full scan.
    """
    import git

    repo = git.Repo(repo_dir)
    old, new = head_range(repo, hook, args)
    if new is None:
        return old, new, None
    if old is None:
        commit = repo.commit(new)
        return old, new, None if commit.parents else commit_files(commit)  # a root commit: all of its tree
    if old == new:
        return old, new, []
    paths: set[str] = set()
    for diff in repo.commit(old).diff(new):
        for p in (diff.a_path, diff.b_path):
            if p:
                paths.add(p)
    return old, new, sorted(paths)


def head_commit(repo_dir: Path) -> Any:
    """HEAD's commit object (GitPython)."""
    import git

    return git.Repo(repo_dir).head.commit


def commit_files(commit: Any) -> list[str]:
    """The paths a commit changed (all of its tree for a root commit)."""
    if commit.parents:
        return sorted({d.b_path or d.a_path for d in commit.parents[0].diff(commit)})
    return sorted(str(item.path) for item in commit.tree.traverse() if getattr(item, "type", "") == "blob")
