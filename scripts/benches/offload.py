"""Offload benchmark: extractor throughput (MB/s), the whole offload's throughput per wall and per
CPU second (interpreter start and imports included), peak memory vs log size, summary compression,
and the wall time of one 30 MB line without a newline.

Each vault gets one small offload first, as a vault in use has: it writes the settings cache, so the
measured run reads it instead of validating `k0maru.toml` with pydantic (~15 MB, ~0.2 s once per
vault).

The stored log's size on disk is reported beside the raw size, and the compression ratio of the dev
logs of tests/data/logs written as refs (heldout/ is not read).

Two inputs: `synthetic` (`--mb`), noise lines with a failure in about 0.1% of its blocks, and `real`
(`--real-mb`), the captured dev logs of tests/data/logs and tests/data/logs/tools (real build, test
and lint output, failures throughout) concatenated in a fixed shuffled order until the size is
reached. Each reports MB per CPU second and peak RSS of the whole offload.

`--streaming` measures instead what wrapping costs a command (issue #62): a tool printing
`--stream-mb` MB of log lines at a steady rate over `--stream-s` seconds, its last line a failure,
run alone and through `k0maru offload -- TOOL` (wall seconds, and from its last line to offload's
exit); and `--stream-real-mb` MB of the real logs piped in (from the end of the input to the
summary on stdout, and to offload's exit). `--base DIR` runs an older checkout's `k0maru` (a
`git worktree add DIR REF`, through PYTHONPATH) in the same rounds; medians over `--rounds`.

    python scripts/bench.py offload [--mb 20 200] [--real-mb 100] [--line-mb 30] [--json]
    python scripts/bench.py offload --streaming [--stream-mb 5] [--stream-s 10]
        [--stream-real-mb 30] [--rounds 5] [--base /tmp/offload_base] [--json]
"""

from __future__ import annotations

import argparse
import json
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
ERRORS = [
    "error[E0502]: cannot borrow `self.queue` as mutable because it is also borrowed as immutable",
    "  --> src/dispatcher.rs:88:13",
    "src/app.ts(5,7): error TS2345: Argument of type 'string | undefined'",
    "==4121==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000010",
    "    #0 0x55d1 in render_page src/render.c:142:9",
    "FAILED tests/test_leases.py::test_expiry - AssertionError: assert 'running' == 'queued'",
]


def make_log(path: Path, mb: float, seed: int = 3) -> int:
    rng = random.Random(seed)
    target = int(mb * 1e6)
    written = 0
    lines = 0
    with path.open("w", encoding="utf-8") as fh:
        while written < target:
            block = []
            for _ in range(1000):
                if rng.random() < 0.001:
                    block.extend(ERRORS)
                block.append(rng.choice(NOISE).format(i=rng.randrange(10**6)))
            text = "\n".join(block) + "\n"
            fh.write(text)
            written += len(text)
            lines += len(block)
    return lines


def real_logs() -> list[Path]:
    """The captured dev logs (held-out folders are not read)."""
    logs = REPO / "tests" / "data" / "logs"
    return sorted([*logs.glob("*.log"), *(logs / "tools").glob("*.log")])


def make_real_log(path: Path, mb: float, seed: int = 3) -> int:
    """The real logs concatenated, each pass in a new shuffled order, up to `mb` MB."""
    texts = [p.read_bytes() for p in real_logs()]
    rng = random.Random(seed)
    target = int(mb * 1e6)
    written = lines = 0
    with path.open("wb") as fh:
        while written < target:
            rng.shuffle(texts)
            for text in texts:
                text = text if text.endswith(b"\n") else text + b"\n"
                fh.write(text)
                written += len(text)
                lines += text.count(b"\n")
    return lines


def extractor_throughput(path: Path) -> dict[str, float]:
    from k0maru.offload.analyzer import LogAnalyzer

    size = path.stat().st_size
    analyzer = LogAnalyzer()
    t0 = time.perf_counter()
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            analyzer.feed(chunk.decode("utf-8", "replace"))
    findings = analyzer.close()
    dt = time.perf_counter() - t0
    return {"extractor_mb_per_s": round(size / 1e6 / dt, 1), "codes": len(findings.error_codes)}


def offload_run(path: Path, vault: Path) -> dict[str, float]:
    """The whole `k0maru offload` (stdin mode) in a child process: wall time, peak RSS,
    compression."""
    subprocess.run(
        [sys.executable, "-m", "k0maru", "offload", "--vault", str(vault), "--task-id", "warm"],
        input=b"warm-up\n",
        capture_output=True,
        check=True,
    )
    code = (
        "import resource, sys, time; from k0maru.cli.main import main; t=time.perf_counter(); "
        "rc=main(['offload','--vault',sys.argv[1],'--task-id','bench','--json']); "
        "u=resource.getrusage(resource.RUSAGE_SELF); "
        "print('WALL', time.perf_counter()-t, u.ru_maxrss, u.ru_utime+u.ru_stime, file=sys.stderr)"
    )
    with path.open("rb") as fh:
        proc = subprocess.run(
            [sys.executable, "-c", code, str(vault)], stdin=fh, capture_output=True, text=True
        )
    # `offload --json`: the record on stdout (the summary goes to stderr)
    rec = json.loads(next(line for line in proc.stdout.splitlines() if line.startswith("{")))
    wall_line = next(line for line in proc.stderr.splitlines() if line.startswith("WALL"))
    _, wall, rss_kb, cpu = wall_line.split()
    mb = path.stat().st_size / 1e6
    stored = sum(p.stat().st_size for p in (vault / ".k0maru" / "refs").glob("bench_*.log*"))
    return {
        "stored_mb": round(stored / 1e6, 2),
        "stored_ratio": round(path.stat().st_size / stored, 1),
        "offload_wall_s": round(float(wall), 2),
        "offload_mb_per_s": round(mb / float(wall), 1),
        "offload_cpu_s": round(float(cpu), 2),
        "offload_mb_per_cpu_s": round(mb / float(cpu), 1),
        "peak_rss_mb": round(int(rss_kb) / 1024, 1),
        "raw_lines": rec["raw_lines"],
        "raw_tokens": rec["raw_tokens"],
        "summary_tokens": rec["summary_tokens"],
        "summary_pct": round(100 * rec["summary_tokens"] / rec["raw_tokens"], 3),
        "codes_kept": sorted(rec["error_codes"]),
        "estimator": rec["estimator"],
    }


def single_line(tmp: Path, mb: float) -> dict[str, float]:
    """One line of `mb` MB with no newline, piped into `k0maru offload`: wall seconds."""
    vault = tmp / "vault-line"
    vault.mkdir()
    data = ("error: " + "x" * int(mb * 1e6)).encode()
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "k0maru", "offload", "--vault", str(vault), "--task-id", "line"],
        input=data,
        capture_output=True,
        check=True,
    )
    return {"line_mb": mb, "line_wall_s": round(time.perf_counter() - t0, 2)}


def real_logs_ratio(tmp: Path) -> dict[str, float]:
    """The dev logs of tests/data/logs written as refs: raw bytes over bytes on disk."""
    import os

    try:
        from k0maru.offload import reflog
    except ImportError:  # a version that stores plain logs
        return {}
    logs = sorted((REPO / "tests/data/logs").glob("*.log"))
    raw = packed = 0
    for log in logs:
        fd = os.open(log, os.O_RDONLY)
        try:
            part = reflog.write(fd, log.stat().st_size, tmp)
        finally:
            os.close(fd)
        raw += log.stat().st_size
        packed += part.stat().st_size
        part.unlink()
    return {
        "real_logs": len(logs),
        "real_mb": round(raw / 1e6, 2),
        "real_ratio": round(raw / packed, 2),
    }


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
    ap.add_argument("--mb", type=float, nargs="+", default=[20, 200])
    ap.add_argument("--real-mb", type=float, nargs="*", default=[100])
    ap.add_argument("--line-mb", type=float, default=30)
    ap.add_argument("--streaming", action="store_true", help="what wrapping costs a command")
    ap.add_argument("--stream-mb", type=float, default=5)
    ap.add_argument("--stream-s", type=float, default=10)
    ap.add_argument("--stream-real-mb", type=float, default=30)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--base", help="an older checkout to run in the same rounds")


def run(args: argparse.Namespace) -> None:
    like_a_users_install()
    if args.streaming:
        with tempfile.TemporaryDirectory() as tmp:
            rows = streaming(args, Path(tmp))
        emit(rows, args.json)
        return
    inputs = [("synthetic", mb, make_log) for mb in args.mb]
    inputs += [("real", mb, make_real_log) for mb in args.real_mb]
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for kind, mb, make in inputs:
            log = Path(tmp) / f"{kind}{mb}.txt"
            make(log, mb)
            vault = Path(tmp) / f"vault-{kind}{mb}"
            vault.mkdir()
            row = {"input": kind, "log_mb": mb, **extractor_throughput(log)}
            row |= offload_run(log, vault)
            if kind == "synthetic":
                row["codes_expected"] = 4  # E0502, TS2345, heap-use-after-free, AssertionError
            results.append(row)
            log.unlink()
        results.append(single_line(Path(tmp), args.line_mb))
        results.append(real_logs_ratio(Path(tmp)))
    emit(results, args.json)
