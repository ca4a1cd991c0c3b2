"""A commit's ADR is never lost (#61 item 3), with real git, the installed plain hooks and a real
kill: a post-commit hook killed (SIGKILL) or interrupted (SIGINT, Ctrl+C) before it wrote the ADR
leaves the commit pending (`pending_adrs`), and the next hook writes it; a file time past 2262 or a
`.gitignore` line that is a lone backslash no longer stops the ADR step."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from k0maru.githooks.run import pending_adrs
from tests.githooks import test_git
from tests.githooks.test_git import GIT_ENV, git
from tests.helpers import K0, write

pytestmark = pytest.mark.slow
repo = test_git.repo  # the fixture: a repository with notes and docs/adr/0001-start.md


def _hook_pids(repo: Path) -> list[int]:
    """The k0maru hook processes running in `repo`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            cwd = os.readlink(f"/proc/{entry}/cwd")
        except OSError:
            continue
        if b"hooks" in argv and b"run" in argv and cwd == str(repo):
            found.append(int(entry))
    return found


def commit_and_kill(repo: Path, message: str, sig: int) -> subprocess.CompletedProcess[str]:
    """`git commit` whose k0maru hook is sent `sig` as soon as it starts."""
    env = {**os.environ, **GIT_ENV}
    proc = subprocess.Popen(
        ["git", "commit", "-q", "-m", message],
        cwd=repo,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    killed = False
    while not killed and proc.poll() is None and time.monotonic() < deadline:
        for pid in _hook_pids(repo):
            os.kill(pid, sig)
            killed = True
    out, err = proc.communicate(timeout=120)
    assert killed, "the hook was never seen running"
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def commit(repo: Path, message: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "commit", "-q", "--allow-empty", "-m", message],
        cwd=repo,
        env={**os.environ, **GIT_ENV},
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT], ids=["kill-9", "ctrl-c"])
def test_a_killed_hook_leaves_the_adr_pending_and_the_next_hook_writes_it(
    repo: Path, k0: K0, sig: int
) -> None:
    k0("hooks", "install", "--vault", str(repo))
    commit(repo, "A first commit: its hook completes")
    adr = repo / "docs/adr/0002-keep-a-at-one.md"
    write(repo, "src/a.py", "A = 1\n")
    git(repo, "add", "src/a.py")
    r = commit_and_kill(repo, "Add a\n\nADR: Keep A at one\n", sig)
    assert r.returncode == 0, r.stderr
    head = git(repo, "rev-parse", "HEAD").stdout.strip()
    if not adr.exists():  # killed before it wrote the ADR: known, not lost, and said
        assert pending_adrs(repo) == [head]
        said = k0("hooks", "status", "--vault", str(repo)).stdout
        assert f"ADR owed by 1 commit(s) ({head[:12]})" in said, said
    if "skipped (interrupted)" in r.stderr:  # caught by the hook (not in Python's own start-up)
        assert "Traceback" not in r.stderr and "the next hook writes" in r.stderr, r.stderr
    nxt = commit(repo, "Another commit, no trailer")
    assert adr.is_file(), nxt.stderr
    assert pending_adrs(repo) == []
    assert f"commit: {head}" in adr.read_text(encoding="utf-8")
    commit(repo, "And one more")
    assert sorted(p.name for p in (repo / "docs/adr").iterdir()) == [
        "0001-start.md",
        "0002-keep-a-at-one.md",
    ]


def test_the_first_hooks_killed_after_install_lose_no_adr(repo: Path, k0: K0) -> None:
    """No hook has completed its ADR step yet (no record of one): the next hook still takes every
    commit made since the hooks were installed."""
    k0("hooks", "install", "--vault", str(repo))
    shas = []
    for n, title in enumerate(("Keep B at two", "Keep C at three")):
        write(repo, f"src/m{n}.py", f"M = {n}\n")
        git(repo, "add", "-A")
        commit_and_kill(repo, f"Add m{n}\n\nADR: {title}\n", signal.SIGKILL)
        shas.append(git(repo, "rev-parse", "HEAD").stdout.strip())
    written = sorted(p.name for p in (repo / "docs/adr").iterdir())
    assert set(pending_adrs(repo)) == {
        s
        for s, name in zip(shas, ("0002", "0003"), strict=True)
        if not any(w.startswith(name) for w in written)
    }
    commit(repo, "A commit whose hook completes")
    assert sorted(p.name for p in (repo / "docs/adr").iterdir()) == [
        "0001-start.md",
        "0002-keep-b-at-two.md",
        "0003-keep-c-at-three.md",
    ]
    assert pending_adrs(repo) == []


def test_far_file_times_and_a_lone_backslash_never_lose_the_adr(repo: Path, k0: K0) -> None:
    k0("hooks", "install", "--vault", str(repo))
    write(repo, ".gitignore", ".k0maru/\n\\\n")
    far = write(repo, "notes/far.md", "# Far\n\nfrom the future\n")
    os.utime(far, ns=(1 << 63, 1 << 63))  # past 2262: beyond a signed 64-bit count of ns
    old = write(repo, "notes/old.md", "# Old\n\nfrom the past\n")
    os.utime(old, ns=(-(10**18), -(10**18)))  # 1938
    git(repo, "add", "-A")
    r = commit(repo, "Far times\n\nADR: Keep far times\n")
    assert "Traceback" not in r.stderr and "skipped" not in r.stderr, r.stderr
    assert (repo / "docs/adr/0002-keep-far-times.md").is_file()
    scan = k0("scan", "--vault", str(repo), "--no-embed")
    assert scan.returncode == 0 and "Traceback" not in scan.stderr, scan.stderr
    for args in (("search", "future"), ("hooks", "status"), ("conventions",)):
        done = k0(*args, "--vault", str(repo))
        assert done.returncode == 0 and "Traceback" not in done.stderr, (args, done.stderr)
    assert "far.md" in k0("search", "future", "--vault", str(repo)).stdout
