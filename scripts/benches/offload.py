"""What wrapping costs a command (issue #62): a tool printing `--stream-mb` MB of log lines at a
steady rate over `--stream-s` seconds, its last line a failure, run alone and through `k0maru
offload -- TOOL` (wall seconds, and from its last line to offload's exit); and `--stream-real-mb` MB
of the captured dev logs of tests/data/logs and tests/data/logs/tools (real build, test and lint
output, failures throughout) piped in (from the end of the input to the summary on stdout, and to
offload's exit). `--base DIR` runs an older checkout's `k0maru` (a `git worktree add DIR REF`,
through PYTHONPATH) in the same rounds; medians over `--rounds`.

Each vault gets one small offload first, as a vault in use has: it writes the settings cache.
The throughput, peak RSS, stored size and 30 MB single-line figures of docs/benchmarks.md came from
the modes this script had before: `git show bb736b0:scripts/benches/offload.py`.

    python scripts/bench.py offload [--stream-mb 5] [--stream-s 10] [--stream-real-mb 30]
        [--rounds 5] [--base /tmp/offload_base] [--json]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from bench import emit, interleave, like_a_users_install

REPO = Path(__file__).resolve().parents[2]
NOISE = [
    "test scheduler::tests::claim_{i} ... ok",
    "   Compiling serde v1.0.{i}",
    "[INFO] worker {i} claimed job 1234, lease renewed in 3ms",
    "tests/test_api.py::test_case_{i} PASSED                                  [ 42%]",
    "2026-11-02T10:00:00Z DEBUG request id={i} status=200 latency=12ms path=/v1/jobs",
]


def make_real_log(path: Path, mb: float) -> None:
    """The captured dev logs (held-out folders unread) concatenated, each pass in a new shuffled
    order, up to `mb` MB."""
    logs = REPO / "tests" / "data" / "logs"
    texts = [
        p.read_bytes().rstrip(b"\n") + b"\n"
        for p in sorted([*logs.glob("*.log"), *logs.glob("tools/*.log")])
    ]
    rng, written = random.Random(3), 0
    with path.open("wb") as fh:
        while written < mb * 1e6:
            rng.shuffle(texts)
            written += sum(fh.write(text) for text in texts)


# a tool writing `mb` MB of log lines in 200 even steps over `seconds`, a failure last; it writes
# the CLOCK_MONOTONIC time of its last line to the file named third, and exits 1
TOOL = """import random, sys, time
mb, seconds, stamp = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
noise = NOISE
rng, out, steps = random.Random(5), sys.stdout.buffer, 200
start = time.monotonic()
for step in range(steps):
    lines, size = [], 0
    while size < mb * 1e6 / steps:
        lines.append(rng.choice(noise).format(i=rng.randrange(10**6)) + "\\n")
        size += len(lines[-1])
    if step == steps - 1:
        lines += ["error[E0502]: cannot borrow `self.queue` as mutable\\n", "  --> src/d.rs:88:13\\n"]
    out.write("".join(lines).encode())
    out.flush()
    if step < steps - 1:
        time.sleep(max(start + (step + 1) * seconds / steps - time.monotonic(), 0))
open(stamp, "w").write(repr(time.monotonic()))
sys.exit(1)
""".replace("NOISE", repr(NOISE))


def _k0maru(code: Path | None) -> tuple[list[str], dict[str, str], Path]:
    """The command, environment and folder that run `k0maru` from checkout `code` (None: this
    one): `-m` puts the folder first on the path, before PYTHONPATH and an editable install."""
    root = code or REPO
    return [sys.executable, "-m", "k0maru"], dict(os.environ, PYTHONPATH=str(root)), root


def _vault(tmp: Path, name: str, code: Path | None) -> Path:
    """A vault that has offloaded once (its settings cache written)."""
    vault = tmp / name
    vault.mkdir()
    k0, env, cwd = _k0maru(code)
    subprocess.run(
        [*k0, "offload", "--vault", str(vault), "--task-id", "warm"],
        input=b"warm-up\n", capture_output=True, check=True, env=env, cwd=cwd,
    )  # fmt: skip
    return vault


def _wrapped(
    tool: list[str], stamp: Path, vault: Path | None, code: Path | None
) -> dict[str, float]:
    """The tool alone (vault None) or through `k0maru offload`: wall seconds, and seconds from its
    last line to the end."""
    k0, env, cwd = _k0maru(code)
    cmd = tool if vault is None else [*k0, "offload", "--vault", str(vault), "--task-id", "b", "--", *tool]  # fmt: skip
    t0 = time.monotonic()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
    end = time.monotonic()
    return {"wall_s": end - t0, "after_last_line_s": end - float(stamp.read_text())}


def _piped(log: Path, vault: Path, code: Path | None) -> dict[str, float]:
    """`log` piped into `k0maru offload`: seconds from the end of the input to the first byte of
    the summary on stdout, and to offload's exit."""
    k0, env, cwd = _k0maru(code)
    proc = subprocess.Popen(
        [*k0, "offload", "--vault", str(vault), "--task-id", "p"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=cwd,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    first: list[float] = []

    def summary_starts() -> None:
        assert proc.stdout is not None
        proc.stdout.read(1)
        first.append(time.monotonic())

    reader = threading.Thread(target=summary_starts)
    reader.start()
    with log.open("rb") as fh:
        while chunk := fh.read(1 << 16):
            proc.stdin.write(chunk)
    proc.stdin.close()
    eof = time.monotonic()
    reader.join()
    proc.stdout.read()
    proc.wait()
    end = time.monotonic()
    return {"eof_to_summary_s": first[0] - eof, "eof_to_exit_s": end - eof}


def _medians(rows: list[dict[str, float]]) -> dict[str, float]:
    return {k: round(statistics.median(r[k] for r in rows), 3) for k in rows[0]}


def streaming(args: argparse.Namespace, tmp: Path) -> list[dict[str, object]]:
    """Wrapping cost and time after the end, per checkout, medians of interleaved rounds."""
    tool_py = tmp / "tool.py"
    tool_py.write_text(TOOL, encoding="utf-8")
    stamp = tmp / "last-line"
    tool = [sys.executable, str(tool_py), str(args.stream_mb), str(args.stream_s), str(stamp)]
    log = tmp / "real.log"
    make_real_log(log, args.stream_real_mb)
    codes: dict[str, Path | None] = {"new": None}
    if args.base:
        codes["base"] = Path(args.base).resolve()
    vaults = {name: _vault(tmp, f"vault-{name}", code) for name, code in codes.items()}
    cases: dict[str, Callable[[], dict[str, float]]] = {
        "alone": partial(_wrapped, tool, stamp, None, None)
    }
    for name, code in codes.items():
        vault = vaults[name]
        cases[f"wrapped {name}"] = partial(_wrapped, tool, stamp, vault, code)
        cases[f"piped {name}"] = partial(_piped, log, vault, code)
    got = interleave(args.rounds, cases)
    alone = _medians(got["alone"])["wall_s"]
    rows: list[dict[str, object]] = [
        {"case": f"tool alone, {args.stream_mb:g} MB over {args.stream_s:g} s", "wall_s": alone}
    ]
    for name in codes:
        wrapped = _medians(got[f"wrapped {name}"])
        rows.append({
            "case": f"tool through offload ({name})", **wrapped,
            "overhead_pct": round(100 * (wrapped["wall_s"] - alone) / alone, 1),
        })  # fmt: skip
        rows.append({
            "case": f"{args.stream_real_mb:g} MB of real logs piped ({name})",
            **_medians(got[f"piped {name}"]),
        })  # fmt: skip
    return [*rows, {"rounds": args.rounds}]


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--streaming", action="store_true", help="(the only mode now; still accepted)")
    ap.add_argument("--stream-mb", type=float, default=5)
    ap.add_argument("--stream-s", type=float, default=10)
    ap.add_argument("--stream-real-mb", type=float, default=30)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--base", help="an older checkout to run in the same rounds")


def run(args: argparse.Namespace) -> None:
    like_a_users_install()
    with tempfile.TemporaryDirectory() as tmp:
        emit(streaming(args, Path(tmp)), args.json)
