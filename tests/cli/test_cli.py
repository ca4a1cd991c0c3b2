"""The command line as a user meets it: help, init, scan/status JSON, locked and corrupt indexes."""

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from k0maru.index.schema import MIGRATIONS
from k0maru.index.store import Store
from tests.helpers import K0, errors, write

pytestmark = pytest.mark.slow  # end-to-end: real processes (see CONTRIBUTING.md)

COMMANDS = [
    "init",
    "scan",
    "status",
    "search",
    "offload",
    "log",
    "conventions",
    "flush",
    "distill",
    "mcp",
    "hooks",
    "ui",
]


def test_help_lists_every_command(k0: K0) -> None:
    r = k0("--help")
    assert r.returncode == 0
    for cmd in COMMANDS:
        assert f"    {cmd}" in r.stdout, cmd
        sub = k0(cmd, "--help")
        assert sub.returncode == 0 and "--vault" in sub.stdout, cmd


def test_each_group_declares_the_commands_it_registers() -> None:
    """main builds only the group a command line names: a command missing from its group's entry in
    GROUPS would be unknown to that command line."""
    import argparse

    from k0maru.cli.main import GROUPS, build_parser

    def names(parser: argparse.ArgumentParser) -> set[str]:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        return set(sub.choices)

    for module, commands in GROUPS.items():
        for command in commands:
            assert names(build_parser(command)) == set(commands), (module, command)
    assert names(build_parser()) == {c for commands in GROUPS.values() for c in commands}


def test_a_command_line_imports_only_its_group() -> None:
    code = (
        "import sys; from k0maru.cli.main import build_parser; build_parser('scan'); "
        "print(sorted(m for m in sys.modules if m.startswith('k0maru.cli.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "['k0maru.cli.index_cmds', 'k0maru.cli.main', 'k0maru.cli.output']", out


def test_the_k0maru_command_runs_a_git_hook_without_the_command_line(vault: Path) -> None:
    # the console script pip writes: `from k0maru.cli import entry`, as pre-commit's entry runs it
    code = (
        "import sys\nfrom k0maru.cli import entry\n"
        f"sys.argv = ['k0maru', 'hooks', 'run', 'reindex', '--vault', {str(vault)!r}]\n"
        "try:\n    entry()\nfinally:\n"
        "    print('argparse' in sys.modules, 'k0maru.cli.main' in sys.modules)\n"
    )
    env = {**os.environ, "K0MARU_HOOK_EMBED": "off"}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["False", "False"], r.stdout
    assert "left to the next command" in (vault / ".k0maru" / "hooks.log").read_text()


def test_init_scan_status(k0: K0, vault: Path) -> None:
    write(vault, ".gitignore", "build/\n")
    write(vault, "a.md", "# A\n[[b]]\n")
    write(vault, "b.md", "# B\n")
    r = k0("init", "--vault", str(vault), "--json")
    assert r.returncode == 0
    assert (vault / ".k0maru" / "config.toml").is_file() and (
        vault / ".k0maru" / "index.sqlite"
    ).is_file()
    assert (
        vault / ".gitignore"
    ).read_text() == "build/\n"  # the repository's own file is left alone
    k0("init", "--vault", str(vault))  # idempotent
    assert (vault / ".k0maru" / ".gitignore").read_text().splitlines()[-1] == "*"
    r = k0("scan", "--vault", str(vault), "--json", "--no-embed")
    data = json.loads(r.stdout)
    assert {k: data[k] for k in ("added", "modified", "unchanged", "removed", "skipped")} == {
        "added": 2,
        "modified": 0,
        "unchanged": 0,
        "removed": 0,
        "skipped": 0,
    }
    assert isinstance(data["elapsed_ms"], float)
    info = json.loads(k0("status", "--vault", str(vault), "--json").stdout)
    assert (
        info["documents"] == 2 and info["links_resolved"] == 1 and info["last_scan"]["added"] == 2
    )
    assert "pysqlite3" in info["sqlite"] or "stdlib" in info["sqlite"]
    assert "sqlite-vec" in info["sqlite"] and info["model"].startswith("all-MiniLM-L6-v2")
    assert info["db_size_bytes"] > 0 and info["schema_version"] == len(MIGRATIONS)
    assert (info["bm25_main_chunks"], info["bm25_delta_chunks"]) == (
        2,
        0,
    )  # scan built the BM25 index
    write(vault, "c.md", "# C\nnew\n")
    k0("scan", "--vault", str(vault), "--no-embed")
    info = json.loads(k0("status", "--vault", str(vault), "--json").stdout)
    assert (info["bm25_main_chunks"], info["bm25_delta_chunks"]) == (
        2,
        1,
    )  # one new chunk, scored per query


def test_scan_hands_its_embedding_to_the_one_worker(k0: K0, vault: Path) -> None:
    """`scan` indexes, then becomes the vault's worker for the vectors (same process, a fresh heap);
    while another worker runs, it leaves them to that one and says so."""
    from k0maru.service import worker

    write(vault, "a.md", "# A\n\nlease renewal\n")
    write(vault, "b.md", "# B\n\nbackup window\n")
    with worker.held(vault) as mine:  # a background worker is busy
        assert mine
        r = k0("scan", "--vault", str(vault), "--json")
        data = json.loads(r.stdout)
        assert r.returncode == 0 and data["added"] == 2 and data["embedded"] == 0
        assert "2 chunk(s) wait for vectors: the background worker is embedding them" in r.stderr
        info = json.loads(k0("status", "--vault", str(vault), "--json").stdout)
        assert info["chunks_pending_embedding"] == 2 and info["worker_running"] is True
    r = k0("scan", "--vault", str(vault), "--json")
    data = json.loads(r.stdout)
    assert r.returncode == 0 and (data["unchanged"], data["embedded"]) == (2, 2), r.stderr
    info = json.loads(k0("status", "--vault", str(vault), "--json").stdout)
    assert info["chunks_pending_embedding"] == 0 and info["worker_running"] is False
    assert "worker: +0 ~0 -0, 2 chunk(s) embedded" in (vault / ".k0maru" / "hooks.log").read_text()


def test_the_worker_a_scan_becomes_keeps_its_flags(k0: K0, vault: Path) -> None:
    """The embedding half runs with the scan's --include: its own look at the notes removes
    nothing."""
    write(vault, "a.txt", "# A\n\nlease renewal\n")
    r = k0("scan", "--vault", str(vault), "--json", "--include", "**/*.txt")
    data = json.loads(r.stdout)
    assert (data["added"], data["removed"], data["embedded"]) == (1, 0, 1), r.stderr


def test_no_progress_bar_when_not_a_terminal(k0: K0, demo: Path) -> None:
    r = k0("scan", "--vault", str(demo), "--full", "--no-embed")
    assert r.returncode == 0 and "\r" not in r.stdout and "\x1b[" not in r.stdout


def test_locked_index_is_a_one_line_error(k0: K0, vault: Path) -> None:
    write(vault, "a.md", "# A\n")
    k0("scan", "--vault", str(vault), "--no-embed")
    write(vault, "b.md", "# B\n")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys, time; c = sqlite3.connect(sys.argv[1], isolation_level=None);"
            "c.execute('BEGIN EXCLUSIVE'); print('locked', flush=True); time.sleep(3600)",
            str(vault / ".k0maru" / "index.sqlite"),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None
    try:
        assert holder.stdout.readline().strip() == "locked"
        r = k0("scan", "--vault", str(vault), "--no-embed", env={"K0MARU_BUSY_TIMEOUT_MS": "100"})
    finally:
        holder.kill()
        holder.wait()
    assert r.returncode == 3
    assert errors(r.stderr).count("\n") == 1 and "index.sqlite" in r.stderr and "locked" in r.stderr
    assert (
        json.loads(k0("scan", "--vault", str(vault), "--no-embed", "--json").stdout)["added"] == 1
    )


def test_corrupt_index_error_and_rebuild(k0: K0, vault: Path) -> None:
    write(vault, "a.md", "# A\n")
    db = vault / ".k0maru" / "index.sqlite"
    db.parent.mkdir()
    db.write_bytes(b"garbage, not a database" * 200)
    r = k0("status", "--vault", str(vault))
    assert r.returncode == 4 and errors(r.stderr).count("\n") == 1
    assert "index.sqlite" in r.stderr and "k0maru scan --rebuild" in r.stderr
    r = k0("scan", "--vault", str(vault), "--rebuild", "--no-embed", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["added"] == 1
    kept = list(db.parent.glob("index.sqlite.corrupt-*"))
    assert len(kept) == 1 and kept[0].read_bytes().startswith(b"garbage")  # nothing is lost
    with Store.open(vault) as store:  # the rebuilt index is sound
        assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_status_does_not_create_an_index(k0: K0, vault: Path) -> None:
    r = k0("status", "--vault", str(vault))
    assert r.returncode == 2 and "k0maru scan" in r.stderr and not (vault / ".k0maru").exists()


def test_missing_vault_dir_is_an_error(k0: K0, tmp_path: Path) -> None:
    r = k0("status", "--vault", str(tmp_path / "nope"))
    assert r.returncode == 2 and "not a directory" in r.stderr


def test_state_dir_stays_out_of_git_without_init(k0: K0, vault: Path) -> None:
    subprocess.run(["git", "init", "-q", str(vault)], check=True)
    write(vault, "a.md", "# A\nnote\n")
    assert k0("scan", "--vault", str(vault), "--no-embed").returncode == 0
    r = k0(
        "offload",
        "--vault",
        str(vault),
        "--threshold",
        "2",
        "--",
        sys.executable,
        "-c",
        "print('step ok\\n' * 2000)",
    )
    assert r.returncode == 0 and list((vault / ".k0maru" / "refs").glob("*.log.gz"))
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=vault,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert status == ["?? a.md"]


def test_status_names_the_model_without_loading_it(k0: K0, vault: Path) -> None:
    import subprocess
    import sys

    write(vault, "a.md", "# A\n")
    k0("scan", "--vault", str(vault), "--no-embed")
    code = (
        "import sys; from k0maru.cli.main import main\n"
        f"main(['status', '--vault', {str(vault)!r}, '--json'])\n"
        "print('onnxruntime' in sys.modules, file=sys.stderr)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stderr.strip().splitlines()[-1] == "False" and json.loads(r.stdout)[
        "model"
    ].startswith("all-MiniLM-L6-v2")
    missing = json.loads(
        k0(
            "status", "--vault", str(vault), "--json", env={"K0MARU_MODEL_PATH": "/no/model.onnx"}
        ).stdout
    )
    assert missing["model"] is None and "/no/model.onnx" in missing["model_warning"]


def test_a_reader_that_goes_away_ends_the_command_quietly(k0: K0, vault: Path) -> None:
    """`k0maru scan | head`: the no-change scan (which leaves without the interpreter's teardown)
    and a command that opened the index both exit 0, with no traceback, when their reader has
    gone."""
    write(vault, "a.md", "# A\n\nSQLITE_BUSY\n")
    k0("scan", "--vault", str(vault), "--no-embed")
    for args in (["scan", "--no-embed"], ["status"]):
        proc = subprocess.Popen(
            [sys.executable, "-m", "k0maru", *args, "--vault", str(vault)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()  # the reader is gone before anything is printed
        err = proc.stderr.read().decode()
        assert (
            proc.wait(timeout=60) == 0 and "Traceback" not in err and "Exception ignored" not in err
        ), err


@contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """`folder` cannot be written for the block: a read-only bind mount as root (who ignores
    permission bits), else its permission bits."""
    root = os.geteuid() == 0
    if root:
        subprocess.run(["mount", "--bind", str(folder), str(folder)], check=True)
        subprocess.run(["mount", "-o", "remount,ro,bind", str(folder)], check=True)
    else:
        for p in folder.iterdir():
            p.chmod(0o444)
        folder.chmod(0o555)
    try:
        yield
    finally:
        if root:
            subprocess.run(["umount", str(folder)], check=True)
        else:
            folder.chmod(0o755)
            for p in folder.iterdir():
                p.chmod(0o644)


def test_status_reads_a_read_only_index(k0: K0, vault: Path) -> None:
    """Status only reads: on a read-only `.k0maru/` it answers (text and JSON), no traceback."""
    write(vault, "a.md", "# A\n")
    k0("scan", "--vault", str(vault))  # the worker embeds: `.k0maru/worker.lock` exists
    assert (vault / ".k0maru" / "worker.lock").exists()
    with read_only(vault / ".k0maru"):
        text = k0("status", "--vault", str(vault))
        data = k0("status", "--vault", str(vault), "--json")
    assert text.returncode == 0 and "Traceback" not in text.stderr, text.stderr
    assert "documents  1" in text.stdout
    assert data.returncode == 0 and json.loads(data.stdout)["documents"] == 1, data.stderr


def test_hooks_json_before_the_action_is_honoured(k0: K0, vault: Path) -> None:
    subprocess.run(["git", "init", "-q", str(vault)], check=True)
    for argv in (("hooks", "--json", "status"), ("hooks", "status", "--json")):
        r = k0(*argv, "--vault", str(vault))
        assert r.returncode == 0 and json.loads(r.stdout)["hooks"]["post-commit"] == "missing"
        assert "k0maru: vault" not in r.stderr  # no vault line with --json
    r = k0("hooks", "status", "--vault", str(vault))
    assert f"k0maru: vault {vault}\n" in r.stderr
