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

    python scripts/bench.py offload [--mb 20 200] [--real-mb 100] [--line-mb 30] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import like_a_users_install

REPO = Path(__file__).resolve().parents[1]
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


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--mb", type=float, nargs="+", default=[20, 200])
    ap.add_argument("--real-mb", type=float, nargs="*", default=[100])
    ap.add_argument("--line-mb", type=float, default=30)


def run(args: argparse.Namespace) -> None:
    like_a_users_install()
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
    print(json.dumps(results) if args.json else "\n".join(json.dumps(r) for r in results))
