"""Real git repositories in temp dirs: plain hooks, the real pre-commit tool, merges, checkouts,
rebases, ADR trailers, a broken index, and existing user hooks."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import cast

import pytest

from k0maru.index.document_store import DocRow
from k0maru.index.store import Store
from tests.helpers import K0, REPO, write

pytestmark = pytest.mark.slow  # end-to-end: real processes (see CONTRIBUTING.md)

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Ada Dev",
    "GIT_AUTHOR_EMAIL": "ada@example.com",
    "GIT_COMMITTER_NAME": "Ada Dev",
    "GIT_COMMITTER_EMAIL": "ada@example.com",
    "K0MARU_HOOK_EMBED": "off",
}


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args],
        cwd=repo,
        env={**os.environ, **GIT_ENV},
        capture_output=True,
        text=True,
        check=check,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write(root, ".gitignore", ".k0maru/\n")
    write(root, "docs/adr/0001-start.md", "# ADR 0001: Start\n\nWe start.\n")
    write(root, "notes/alpha.md", "# Alpha\n\nalpha content [[beta]]\n")
    write(root, "notes/beta.md", "# Beta\n\nbeta content\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "initial")
    return root


def background_env() -> dict[str, str]:
    """The hooks' default: they start the background worker."""
    return {k: v for k, v in {**os.environ, **GIT_ENV}.items() if k != "K0MARU_HOOK_EMBED"}


def settle(root: Path, k0: K0) -> None:
    """Run the worker the hook asks for, in the foreground (the tests set K0MARU_HOOK_EMBED=off)."""
    r = k0("worker", "--vault", str(root))
    assert r.returncode == 0, r.stderr


def wait_for_worker(root: Path, timeout_s: float = 120) -> None:
    """Wait until the background worker a hook started has taken the request and let go of its
    lock."""
    import time

    from k0maru.service import worker

    deadline = time.time() + timeout_s
    while worker.busy(root):
        if time.time() > deadline:
            pytest.fail("the background worker did not finish")
        time.sleep(0.2)


def indexed(root: Path) -> dict[str, str]:
    with Store.open(root) as store:
        return {p: cast(DocRow, store.document_by_path(p)).body for p in store.cached_documents()}


def on_disk(root: Path) -> dict[str, str]:
    from k0maru.index.markdown import parse_note

    return {
        p.relative_to(root).as_posix(): parse_note(p.name, p.read_text()).body
        for p in root.rglob("*.md")
        if ".k0maru" not in p.parts
    }


def test_plain_hooks_chain_existing_and_track_merge_checkout_rebase(repo: Path, k0: K0) -> None:
    user_hook = repo / ".git" / "hooks" / "post-commit"
    marker = repo.parent / "user-hook-ran.txt"
    user_hook.write_text(f"#!/bin/sh\necho ran >> {marker}\n")
    user_hook.chmod(0o755)
    r = k0("hooks", "install", "--vault", str(repo))
    assert r.returncode == 0 and "chained" in r.stdout
    k0("scan", "--vault", str(repo), "--no-embed")

    write(repo, "notes/gamma.md", "# Gamma\n\nzanzibar lease protocol\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "add gamma")
    assert marker.read_text() == "ran\n"  # the existing hook still runs
    assert (
        "reindex hook=post-commit: left to the next command"
        in (repo / ".k0maru" / "hooks.log").read_text()
    )
    settle(repo, k0)
    hits = json.loads(
        k0(
            "search", "--vault", str(repo), "--no-scan", "--mode", "bm25", "--json", "zanzibar"
        ).stdout
    )
    assert hits["hits"][0]["path"] == "notes/gamma.md"  # the worker the commit asked for indexed it
    assert "worker: +1 ~0 -0" in (repo / ".k0maru" / "hooks.log").read_text()

    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, "notes/beta.md", "# Beta\n\nbeta rewritten on feature\n")
    (repo / "notes" / "alpha.md").unlink()
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "feature work")
    settle(repo, k0)
    assert indexed(repo) == on_disk(repo)
    git(repo, "checkout", "-q", "main")  # post-checkout: back to main's files
    settle(repo, k0)
    assert indexed(repo) == on_disk(repo) and "notes/alpha.md" in indexed(repo)
    write(repo, "notes/delta.md", "# Delta\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "delta on main")
    git(repo, "merge", "-q", "--no-edit", "feature")  # post-merge
    settle(repo, k0)
    assert indexed(repo) == on_disk(repo) and "notes/alpha.md" not in indexed(repo)

    git(repo, "checkout", "-q", "-b", "topic", "HEAD~2")
    write(repo, "notes/epsilon.md", "# Epsilon\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "epsilon")
    git(repo, "rebase", "-q", "main")  # post-rewrite (rebase)
    settle(repo, k0)
    assert indexed(repo) == on_disk(repo)
    status = json.loads(k0("hooks", "status", "--vault", str(repo), "--json").stdout)
    assert status["hooks"]["post-commit"] == "k0maru (chained)"
    assert status["pending"] == {"new": 0, "changed": 0, "removed": 0}

    r = k0("hooks", "uninstall", "--vault", str(repo))
    assert "restored your original hook" in r.stdout
    assert user_hook.read_text().startswith("#!/bin/sh\necho ran")


def test_adr_trailer_yields_exactly_one_adr(repo: Path, k0: K0) -> None:
    k0("hooks", "install", "--vault", str(repo))
    write(repo, "src/lease.py", "RENEW_EVERY = 10\n")
    git(repo, "add", "-A")
    message = (
        "Batch lease renewals\n\nRenewals were 500 writes/s at peak.\n\n"
        "ADR: Batch lease renewals per worker\nDecision: One RenewLeases call per worker every 10 s.\n"
        "Consequences: Partial failures return the lost job ids.\n"
    )
    r = git(repo, "commit", "-qm", message)
    assert "ADR written: docs/adr/0002-batch-lease-renewals-per-worker.md" in r.stderr
    adr = repo / "docs/adr/0002-batch-lease-renewals-per-worker.md"
    text = adr.read_text()
    sha = git(repo, "rev-parse", "HEAD").stdout.strip()
    assert f"commit: {sha}" in text and "author: Ada Dev" in text and "`src/lease.py`" in text
    assert "## Decision\n\nOne RenewLeases call per worker every 10 s." in text
    assert "## Context\n\nRenewals were 500 writes/s at peak." in text

    git(repo, "commit", "-q", "--amend", "-m", message)  # amend: same decision, new sha
    write(repo, "notes/other.md", "# Other\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "unrelated")
    git(repo, "rebase", "-q", "HEAD~2", "--exec", "true")
    git(repo, "commit", "-q", "--allow-empty", "-m", "no trailer here")
    adrs = sorted(p.name for p in (repo / "docs/adr").glob("*.md"))
    assert adrs == ["0001-start.md", "0002-batch-lease-renewals-per-worker.md"]
    hits = json.loads(
        k0("search", "--vault", str(repo), "--mode", "bm25", "--json", "RenewLeases").stdout
    )["hits"]
    assert hits[0]["path"] == "docs/adr/0002-batch-lease-renewals-per-worker.md"


def test_broken_index_never_blocks_a_commit(repo: Path, k0: K0) -> None:
    """The hook never opens the index; the background worker finds it broken, and the next git
    command says so in one line while the commit still succeeds."""
    k0("hooks", "install", "--vault", str(repo))
    (repo / ".k0maru").mkdir(exist_ok=True)
    (repo / ".k0maru" / "index.sqlite").write_bytes(b"this is not a database" * 100)
    env = background_env()
    for name in ("new", "newer"):
        write(repo, f"notes/{name}.md", f"# {name}\n")
        git(repo, "add", "-A")
        r = subprocess.run(
            ["git", "commit", "-qm", f"commit {name} with a broken index"],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
        )
        assert r.returncode == 0
        assert (
            git(repo, "log", "-1", "--format=%s").stdout.strip()
            == f"commit {name} with a broken index"
        )
        wait_for_worker(repo)
    assert "k0maru: background reindex failed:" in r.stderr and "index is corrupt" in r.stderr
    assert "hooks.log" in r.stderr and "Traceback" not in r.stderr
    assert "worker failed:" in (repo / ".k0maru" / "hooks.log").read_text()
    k0("scan", "--vault", str(repo), "--rebuild", "--no-embed")
    settle(repo, k0)
    assert not (repo / ".k0maru" / "worker-error").exists()  # fixed: the next commit stays quiet


def test_real_pre_commit_from_local_path(repo: Path, k0: K0, tmp_path: Path) -> None:
    """pre-commit installs k0maru from this checkout into its own environment and runs the
    post-commit hooks."""
    pre_commit = shutil.which("pre-commit") or str(Path(sys.executable).parent / "pre-commit")
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True
    ).stdout.strip()
    if not head:
        pytest.fail("this checkout has no commit for pre-commit to install from")
    write(
        repo,
        ".pre-commit-config.yaml",
        f"repos:\n  - repo: {REPO}\n    rev: {head}\n    hooks:\n      - id: k0maru-reindex\n      - id: k0maru-adr\n",
    )
    env = {
        **os.environ,
        **GIT_ENV,
        "PRE_COMMIT_HOME": str(
            Path(os.environ.get("K0MARU_TEST_PRE_COMMIT_HOME", tmp_path / "pc-home"))
        ),
    }
    for hook_type in ("post-commit", "post-merge", "post-checkout", "post-rewrite"):
        subprocess.run(
            [pre_commit, "install", "--hook-type", hook_type],
            cwd=repo,
            env=env,
            check=True,
            capture_output=True,
        )
    subprocess.run(
        [pre_commit, "install-hooks"],
        cwd=repo,
        env=env,
        check=True,
        capture_output=True,
        timeout=900,
    )
    write(repo, "notes/omega.md", "# Omega\n\nquokka migration plan\n")
    subprocess.run(["git", "add", "-A"], cwd=repo, env=env, check=True)
    r = subprocess.run(
        ["git", "commit", "-qm", "omega\n\nADR: Adopt quokka migration"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert (
        "reindex hook=-: left to the next command" in (repo / ".k0maru" / "hooks.log").read_text()
    )
    settle(repo, k0)
    hits = json.loads(
        k0("search", "--vault", str(repo), "--no-scan", "--mode", "bm25", "--json", "quokka").stdout
    )
    assert {h["path"] for h in hits["hits"]} >= {
        "notes/omega.md",
        "docs/adr/0002-adopt-quokka-migration.md",
    }
    # a failing hook never fails the commit; pre-commit hides a passing hook's output, so
    # `hooks status` is where the failure shows
    (repo / ".k0maru" / "index.sqlite").write_bytes(b"this is not a database" * 100)
    assert k0("worker", "--vault", str(repo)).returncode != 0
    write(repo, "notes/psi.md", "# Psi\n")
    subprocess.run(["git", "add", "-A"], cwd=repo, env=env, check=True)
    r = subprocess.run(
        ["git", "commit", "-qm", "psi"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0
    status = k0("hooks", "status", "--vault", str(repo))
    assert "last background failure:" in status.stdout, status.stdout + status.stderr


def test_background_finish_embeds_and_warms_bm25(repo: Path, k0: K0) -> None:
    """With the default hook settings, vectors are finished off the commit's path (that the commit
    never waits for the index is shown by test_commit_with_the_index_locked_by_another_process);
    BM25 answers for the new note from its delta without a rebuild."""
    k0("hooks", "install", "--vault", str(repo))
    k0("scan", "--vault", str(repo))
    write(repo, "notes/theta.md", "# Theta\n\nplatypus rollout checklist\n")
    git(repo, "add", "-A")
    env = background_env()
    subprocess.run(
        ["git", "commit", "-qm", "theta"], cwd=repo, env=env, check=True, capture_output=True
    )
    wait_for_worker(repo)
    with Store.open(repo) as store:
        pending = store.conn.execute("SELECT count(*) FROM chunks WHERE embedded = 0").fetchone()[0]
        state = store.bm25_state()
    assert "notes/theta.md" in indexed(repo) and pending == 0 and state is not None
    assert state.backlog == 1  # one new chunk: the delta, not a rebuild
    hits = json.loads(
        k0(
            "search", "--vault", str(repo), "--no-scan", "--mode", "bm25", "--json", "platypus"
        ).stdout
    )
    assert [h["path"] for h in hits["hits"]] == ["notes/theta.md"]


def test_amended_adr_follows_the_new_sha(repo: Path, k0: K0) -> None:
    k0("hooks", "install", "--vault", str(repo))
    message = "Cache tokens\n\nADR: Cache auth tokens for 60 s\n"
    write(repo, "src/auth.py", "TTL = 60\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)
    first = git(repo, "rev-parse", "HEAD").stdout.strip()
    write(repo, "src/auth.py", "TTL = 60  # seconds\n")
    git(repo, "add", "-A")
    r = git(repo, "commit", "-q", "--amend", "-m", message)
    amended = git(repo, "rev-parse", "HEAD").stdout.strip()
    adr = (repo / "docs/adr/0002-cache-auth-tokens-for-60-s.md").read_text()
    assert amended != first and f"commit: {amended}" in adr and first not in adr
    assert "ADR updated: docs/adr/0002-cache-auth-tokens-for-60-s.md" in r.stderr
    assert len(list((repo / "docs/adr").glob("*.md"))) == 2


def test_amend_with_an_edited_message_updates_the_adr_in_place(repo: Path, k0: K0) -> None:
    """An amend that edits the message (the body, the title) rewrites the ADR k0maru wrote for
    the commit it replaced: one record, the new decision and sha, never a second ADR superseding
    the first (which would name a commit no longer in history)."""
    k0("hooks", "install", "--vault", str(repo))
    write(repo, "src/db.py", "RECYCLE = 300\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "Pool\n\nStale conns.\n\nADR: Recycle connections every 5 minutes\n")
    first = git(repo, "rev-parse", "HEAD").stdout.strip()
    edited = (
        "Pool sizes\n\nStale connections behind the LB.\n\nADR: Recycle connections every 5 min\n"
    )
    r = git(repo, "commit", "-q", "--amend", "-m", edited)
    amended = git(repo, "rev-parse", "HEAD").stdout.strip()
    path = "docs/adr/0002-recycle-connections-every-5-minutes.md"
    adr = (repo / path).read_text()
    assert sorted(p.name for p in (repo / "docs/adr").glob("*.md")) == [
        "0001-start.md",
        Path(path).name,
    ]
    assert f"ADR updated: {path}" in r.stderr and "ADR written" not in r.stderr
    assert "every 5 min\n" in adr and "behind the LB" in adr and "Stale conns." not in adr
    assert f"commit: {amended}" in adr and first not in adr and "uperseded" not in adr


def test_an_amended_adr_keeps_the_record_it_supersedes(repo: Path, k0: K0) -> None:
    k0("hooks", "install", "--vault", str(repo))
    for n, why in enumerate(("Fast.", "Faster.", "Faster still.")):
        write(repo, "src/x.py", f"X = {n}\n")
        git(repo, "add", "-A")
        amend = ["--amend"] if n == 2 else []
        git(repo, "commit", "-q", *amend, "-m", f"Use X\n\n{why}\n\nADR: Use X\n")
    first, second = (repo / "docs/adr/0002-use-x.md"), (repo / "docs/adr/0003-use-x.md")
    assert len(list((repo / "docs/adr").glob("*.md"))) == 3
    assert "Superseded by [[0003-use-x]]" in first.read_text()
    adr = second.read_text()
    assert "Supersedes [[0002-use-x]]" in adr and "Faster still." in adr
    assert f"commit: {git(repo, 'rev-parse', 'HEAD').stdout.strip()}" in adr


def test_a_rebase_that_rewords_the_message_updates_the_adr_in_place(repo: Path, k0: K0) -> None:
    """The ADR the hook wrote is committed next (as the README says); a rebase that rewords the
    first commit picks both (no ADR is written between its picks, where it would stop the second
    one) and then rewrites the ADR in place for the reworded commit."""
    k0("hooks", "install", "--vault", str(repo))
    write(repo, "src/db.py", "RECYCLE = 300\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "Pool\n\nStale conns.\n\nADR: Recycle connections\n")
    write(repo, "src/other.py", "X = 1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "later")
    assert "docs/adr/0002-recycle-connections.md" in git(repo, "show", "--name-only", "HEAD").stdout
    env = {"GIT_SEQUENCE_EDITOR": "sed -i 1s/^pick/reword/", "GIT_EDITOR": "sed -i s/conns/links/"}
    subprocess.run(
        ["git", "rebase", "-q", "-i", "HEAD~2"],
        cwd=repo,
        env={**os.environ, **GIT_ENV, **env},
        check=True,
        capture_output=True,
    )
    reworded = git(repo, "rev-parse", "HEAD~1").stdout.strip()
    adr = (repo / "docs/adr/0002-recycle-connections.md").read_text()
    assert len(list((repo / "docs/adr").glob("*.md"))) == 2
    assert "Stale links." in adr and f"commit: {reworded}" in adr and "uperseded" not in adr


def test_commit_with_the_index_locked_by_another_process(repo: Path, k0: K0) -> None:
    """Another k0maru holds the write lock until it is killed: the commit ends while the lock is
    still held (the hook never opens the index); the worker indexes the note once the lock is
    gone."""
    k0("hooks", "install", "--vault", str(repo))
    k0("scan", "--vault", str(repo), "--no-embed")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            (
                "import sys, time\nfrom pathlib import Path\nfrom k0maru.index.store import Store\n"
                f"s = Store.open(Path({str(repo)!r}))\ns.conn.execute('BEGIN IMMEDIATE')\nprint('locked', flush=True)\n"
                "time.sleep(3600)\n"
            ),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None
    try:
        assert holder.stdout.readline().strip() == "locked"
        write(repo, "notes/locked.md", "# Locked\n\nwombat failover drill\n")
        git(repo, "add", "-A")
        r = git(repo, "commit", "-qm", "while locked")
        still_locked = holder.poll() is None
    finally:
        holder.kill()
        holder.wait()
    assert r.returncode == 0 and still_locked, r.stderr
    assert (repo / ".k0maru" / "reindex-wanted").exists()
    settle(repo, k0)  # what the hook would have started
    assert "notes/locked.md" in indexed(repo) and not (repo / ".k0maru" / "reindex-wanted").exists()


def test_reset_hard_is_caught_by_the_next_worker(repo: Path, k0: K0) -> None:
    """`git reset --hard` runs no hook; the worker the next git event starts scans the whole vault
    (stat() per file), so the note the reset removed leaves the index too."""
    k0("hooks", "install", "--vault", str(repo))
    k0("scan", "--vault", str(repo), "--no-embed")
    write(repo, "notes/doomed.md", "# Doomed\n\nnarwhal\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "doomed")
    settle(repo, k0)
    assert "notes/doomed.md" in indexed(repo)
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    assert "notes/doomed.md" in indexed(repo)  # no hook ran
    write(repo, "notes/next.md", "# Next\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "next")
    settle(repo, k0)
    assert set(indexed(repo)) == set(on_disk(repo))


def test_a_request_made_while_the_worker_finishes_is_not_lost(repo: Path) -> None:
    """The worker goes again when a hook asked after its last look (the flag outlives the lock
    check)."""
    from k0maru.service import worker

    subprocess.run(
        [sys.executable, "-m", "k0maru", "scan", "--vault", str(repo), "--no-embed"],
        check=True,
        capture_output=True,
    )
    with worker.held(
        repo
    ) as mine:  # a worker is finishing: the hook's request finds the lock taken
        assert mine
        write(repo, "notes/late.md", "# Late\n\nkestrel\n")
        assert worker.request(repo) is False
    done = worker.run(
        repo
    )  # the next run (as the finishing worker's second pass would) takes the request
    assert done and (done.added, done.modified, done.removed) == (1, 0, 0)
    assert "+1 ~0 -0" in str(done) and not (repo / ".k0maru" / "reindex-wanted").exists()
    assert "notes/late.md" in indexed(repo)


def test_pre_commit_manifest_stays_quiet_on_success() -> None:
    import yaml

    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert all("verbose" not in h and h["always_run"] is True for h in hooks)


@pytest.mark.slow
def test_the_readme_pre_commit_block_works_as_written(repo: Path, k0: K0, tmp_path: Path) -> None:
    """The README's config and install command, run with the real pre-commit on a repository that
    already has k0maru's plain hooks: `hooks status` reports the double install, `hooks uninstall`
    clears it, and then each git event prints one line."""
    import re

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    config_block = re.search(r"```yaml\n(repos:.*?)```", readme, re.S)
    install_line = re.search(r"```bash\n(pre-commit install [^\n]*)\n```", readme)
    assert config_block is not None and install_line is not None
    config, install = config_block.group(1), install_line.group(1)
    pre_commit = shutil.which("pre-commit") or str(Path(sys.executable).parent / "pre-commit")
    env = {
        **os.environ,
        **GIT_ENV,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",  # `k0maru` on PATH
        "PRE_COMMIT_HOME": str(tmp_path / "pc-home"),
    }
    assert k0("hooks", "install", "--vault", str(repo)).returncode == 0
    write(repo, ".pre-commit-config.yaml", config)
    argv = install.split()
    r = subprocess.run([pre_commit, *argv[1:]], cwd=repo, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    status = k0("hooks", "status", "--vault", str(repo)).stdout
    assert "DOUBLE INSTALL" in status and "k0maru is installed twice" in status
    assert (repo / ".git" / "hooks" / "post-commit.legacy").exists()
    r = k0("hooks", "uninstall", "--vault", str(repo))
    assert "post-commit.legacy" in r.stdout
    status = k0("hooks", "status", "--vault", str(repo)).stdout
    assert "DOUBLE" not in status and "pre-commit (k0maru via .pre-commit-config.yaml)" in status
    subprocess.run(["git", "add", "-A"], cwd=repo, env=env, check=True)
    write(repo, "notes/gamma.md", "# Gamma\n\nwombat\n")
    subprocess.run(["git", "add", "-A"], cwd=repo, env=env, check=True)
    for argv in (["commit", "-qm", "gamma"], ["checkout", "-q", "-b", "topic"]):
        r = subprocess.run(["git", *argv], cwd=repo, env=env, capture_output=True, text=True)
        out = (r.stdout + r.stderr).strip().splitlines()
        assert (
            r.returncode == 0 and len(out) == 1 and re.match(r"k0maru reindex\.+Passed", out[0])
        ), out
    settle(repo, k0)
    hits = k0("search", "--vault", str(repo), "--no-scan", "--mode", "bm25", "--json", "wombat")
    assert "notes/gamma.md" in hits.stdout


def test_the_first_hook_leaves_git_status_clean(tmp_path: Path, k0: K0) -> None:
    """A repository that never ignored .k0maru/: the state folder the hook creates ignores
    itself."""
    root = tmp_path / "plain"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write(root, "notes/a.md", "# A\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "a")
    k0("hooks", "install", "--vault", str(root))
    write(root, "notes/b.md", "# B\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "b")
    assert (root / ".k0maru" / "reindex-wanted").exists()
    assert git(root, "status", "--porcelain").stdout == ""


def test_a_hook_whose_python_is_gone_uses_path_or_says_what_to_do(repo: Path, k0: K0) -> None:
    """The plain hook runs the Python that installed it; once that is gone (a deleted virtual
    environment) it runs `k0maru` from PATH, and without one it says in one line what to run."""
    import re

    k0("hooks", "install", "--vault", str(repo))
    hook = repo / ".git" / "hooks" / "post-commit"
    text = hook.read_text(encoding="utf-8")
    hook.write_text(re.sub(r"K0MARU_PYTHON=\S+", "K0MARU_PYTHON=/gone/venv/bin/python", text))
    bare = {**os.environ, **GIT_ENV, "PATH": "/usr/bin:/bin"}  # git and sh, no k0maru
    bare.pop("K0MARU", None)
    write(repo, "notes/a.md", "# A\n")
    git(repo, "add", "-A")
    r = subprocess.run(
        ["git", "commit", "-qm", "a"], cwd=repo, env=bare, capture_output=True, text=True
    )
    assert r.returncode == 0 and "not found" not in r.stderr, r.stderr
    assert r.stderr.strip() == (
        "k0maru: hook skipped: /gone/venv/bin/python is gone and k0maru is not on PATH; "
        "reinstall k0maru, then run: k0maru hooks install"
    )
    on_path = {**bare, "PATH": f"{Path(sys.executable).parent}{os.pathsep}/usr/bin:/bin"}
    write(repo, "notes/b.md", "# B\n")
    git(repo, "add", "-A")
    r = subprocess.run(
        ["git", "commit", "-qm", "b"], cwd=repo, env=on_path, capture_output=True, text=True
    )
    assert r.returncode == 0 and "skipped" not in r.stderr, r.stderr
    assert "hook=post-commit" in (repo / ".k0maru" / "hooks.log").read_text(encoding="utf-8")


def test_install_refuses_a_double_install_before_writing(
    repo: Path, k0: K0, tmp_path: Path
) -> None:
    """pre-commit already runs k0maru: `hooks install` says so and writes nothing (before, it
    chained its hook in front of pre-commit's and only `hooks status` warned afterwards)."""
    pre_commit = shutil.which("pre-commit") or str(Path(sys.executable).parent / "pre-commit")
    write(
        repo,
        ".pre-commit-config.yaml",
        "repos:\n  - repo: local\n    hooks:\n      - id: k0maru-reindex\n        name: k0maru reindex\n        entry: k0maru hooks run reindex\n        language: system\n        stages: [post-commit]\n",
    )
    env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(tmp_path / "pc-home")}
    subprocess.run(
        [pre_commit, "install", "--hook-type", "post-commit"],
        cwd=repo,
        env=env,
        check=True,
        capture_output=True,
    )
    hooks = repo / ".git" / "hooks"
    before = {p.name: p.read_bytes() for p in hooks.iterdir()}
    r = k0("hooks", "install", "--vault", str(repo))
    assert r.returncode == 2 and "pre-commit already runs k0maru" in r.stderr
    assert r.stderr.count("k0maru: error:") == 1
    assert {p.name: p.read_bytes() for p in hooks.iterdir()} == before


def test_hooks_status_and_status_agree_while_the_worker_embeds(repo: Path, k0: K0) -> None:
    """While a worker holds its lock with vectors pending, both say the worker is embedding them;
    neither tells the person to run `k0maru scan`."""
    from k0maru.service import worker

    k0("scan", "--vault", str(repo), "--no-embed")
    with worker.held(repo) as mine:  # this process is the running worker
        assert mine
        hooks = k0("hooks", "status", "--vault", str(repo)).stdout
        status = k0("status", "--vault", str(repo)).stdout
    assert "the worker is embedding them" in status, status
    assert "the worker is embedding them" in hooks and "k0maru scan" not in hooks, hooks
