"""Offload when the log cannot be kept (#32 item 3): a full disk (a real 1 MB tmpfs when this
process may mount one, else a file-size limit the kernel enforces), or `.k0maru/` removed while the
command runs. The command runs to completion, all its output reaches the terminal, the exit status
is the command's, and one line on stderr says the log could not be kept and why."""

from __future__ import annotations

import base64
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import errors

pytestmark = pytest.mark.slow

# 3 MB of output (more than the 1 MB filesystem holds), then exit 3
LOUD = (
    "import sys\n"
    "for i in range(30000):\n"
    "    print(f'build step {i:05d} ' + 'x' * 80)\n"
    "print('error: the last line', file=sys.stderr)\n"
    "sys.exit(3)\n"
)
EXPECTED_LINES = 30001


def _k0(
    *args: str, cwd: Path, input: bytes | None = None, limit_bytes: int | None = None
) -> subprocess.CompletedProcess[bytes]:
    def limit() -> None:  # pragma: no cover - runs in the child
        assert limit_bytes is not None  # only set as preexec_fn with a limit
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))

    return subprocess.run(
        [sys.executable, "-m", "k0maru", *args],
        cwd=cwd,
        input=input,
        capture_output=True,
        timeout=120,
        preexec_fn=limit if limit_bytes else None,
    )


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[tuple[Path, int | None]]:
    """(a vault folder on a 1 MB tmpfs, None), or (a plain folder, a 1 MB file-size limit) where no
    filesystem can be mounted here."""
    root = tmp_path / "small"
    root.mkdir()
    mounted = (
        os.geteuid() == 0
        and shutil.which("mount")
        and subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(root)], capture_output=True
        ).returncode
        == 0
    )
    try:
        yield root, None if mounted else 1_000_000
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(root)], capture_output=True)


def _one_line(stderr: bytes) -> str:
    lines = [ln for ln in errors(stderr.decode()).splitlines() if ln.startswith("k0maru")]
    assert len(lines) == 1, stderr.decode()
    assert "Traceback" not in stderr.decode()
    return lines[0]


def test_a_full_disk_passes_the_output_through_with_the_commands_status(
    small_disk: tuple[Path, int | None], tmp_path: Path
) -> None:
    vault, limit = small_disk
    script = tmp_path / "loud.py"
    script.write_text(LOUD)
    r = _k0(
        "offload", "--vault", str(vault), "--task-id", "t", "--", sys.executable, str(script),
        cwd=vault, limit_bytes=limit,
    )  # fmt: skip
    assert r.returncode == 3
    assert r.stdout.count(b"\n") == EXPECTED_LINES - 1 and r.stdout.endswith(b"x" * 80 + b"\n")
    assert b"build step 00000 " in r.stdout and b"build step 29999 " in r.stdout
    assert b"error: the last line" in r.stderr  # the child's stderr went to stderr once passing on
    line = _one_line(r.stderr)
    reason = "No space left on device" if limit is None else "File too large"
    assert "the log could not be kept" in line and reason in line
    assert not list((vault / ".k0maru" / "refs").glob("*.tmp")), "the spool was not removed"


def test_a_full_disk_while_piped_reads_to_the_end(
    small_disk: tuple[Path, int | None], tmp_path: Path
) -> None:
    """Piped: offload keeps reading, so the writer never gets a broken pipe; offload itself exits
    0."""
    vault, limit = small_disk
    data = b"".join(f"line {i:06d} {'y' * 60}\n".encode() for i in range(40000))
    r = _k0(
        "offload", "--vault", str(vault), "--task-id", "t",
        cwd=vault, input=data, limit_bytes=limit,
    )  # fmt: skip
    assert r.returncode == 0 and r.stdout == data
    assert "the log could not be kept" in _one_line(r.stderr)


def test_a_disk_that_holds_the_log_but_not_its_compressed_copy(
    small_disk: tuple[Path, int | None],
) -> None:
    """The plain spool fits, its compressed copy does not: the output passes through, nothing is
    left."""
    vault, limit = small_disk
    if limit is not None:
        pytest.skip("needs a real small filesystem (a file-size limit is per file)")
    rng = random.Random(3)
    data = b"".join(base64.b64encode(rng.randbytes(60)) + b"\n" for _ in range(8000))  # 650 KB
    r = _k0("offload", "--vault", str(vault), "--task-id", "t", cwd=vault, input=data)
    assert r.returncode == 0 and r.stdout == data
    line = _one_line(r.stderr)
    assert "the log could not be kept (No space left on device" in line
    assert [p.name for p in (vault / ".k0maru" / "refs").iterdir()] == []


def test_state_folder_removed_during_the_run(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    vault.mkdir()
    cmd = (
        'i=0; while [ $i -lt 300 ]; do echo "step $i"; i=$((i+1)); done; rm -rf .k0maru; '
        "echo 'after removal'; exit 4"
    )
    r = _k0("offload", "--vault", str(vault), "--", "sh", "-c", cmd, cwd=vault)
    assert r.returncode == 4
    out = r.stdout.decode().splitlines()
    assert out[0] == "step 0" and out[299] == "step 299" and out[-1] == "after removal"
    line = _one_line(r.stderr)
    assert "the log could not be kept" in line and "No such file or directory" in line


def test_an_unwritable_state_folder_still_runs_the_command(tmp_path: Path) -> None:
    """`.k0maru` is a file, not a folder: nothing can be kept, the command still runs."""
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / ".k0maru").write_text("not a folder")
    r = _k0("offload", "--vault", str(vault), "--", "sh", "-c", "seq 1 200; exit 5", cwd=vault)
    assert r.returncode == 5
    assert r.stdout.decode().split() == [str(i) for i in range(1, 201)]
    assert "the log could not be kept" in _one_line(r.stderr)
