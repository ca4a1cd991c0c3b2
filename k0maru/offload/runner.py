"""`k0maru offload`: run a command (or read stdin), keep the full log, print a summary past the threshold."""

from __future__ import annotations

import codecs
import contextlib
import os
import re
import selectors
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from k0maru.errors import K0maruError
from k0maru.fsutil import ensure_state_dir
from k0maru.index.markdown import hash_bytes
from k0maru.llm_tokens import count_tokens
from k0maru.offload import records, summary
from k0maru.offload.analyzer import LogAnalyzer
from k0maru.offload.findings import Findings
from k0maru.offload.tokencount import count_log_tokens

MAX_SUMMARY_SHARE = (
    0.5  # a summary must cost at most half the log's tokens, else the log passes through
)
READ_SIZE = 1 << 16
_TASK_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(slots=True)
class OffloadOutcome:
    exit_code: int
    lines: int
    passed_through: bool
    record: records.OffloadRecord | None = None
    findings: Findings | None = None


class CommandNotFound(K0maruError):
    exit_code = 127  # as a shell reports it


def default_task_id(vault: Path) -> str:
    """K0MARU_TASK_ID, else the current git branch, else 'adhoc'."""
    env = os.environ.get("K0MARU_TASK_ID")
    if env:
        return safe_task_id(env)
    from k0maru.gitutil import current_branch

    branch = current_branch(vault)
    return safe_task_id(branch) if branch else "adhoc"


def safe_task_id(task: str) -> str:
    cleaned = _TASK_SAFE.sub("-", task).strip(".-")[:64]
    if not cleaned:
        raise K0maruError(
            f"task id {task!r} has no usable characters; use letters, digits, '.', '_' or '-'"
        )
    return cleaned


def _exit_status(code: int) -> int:
    return 128 + (-code) if code < 0 else code


class _Spool:
    """Everything read goes to a temp log in .k0maru/refs; the first `threshold` lines are also kept in
    memory so a short output can be passed through untouched."""

    def __init__(self, refs: Path, threshold: int):
        refs.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".offload-{os.getpid()}-", suffix=".tmp", dir=refs)
        self.tmp = Path(tmp)
        self.fh = os.fdopen(
            fd, "wb", buffering=0
        )  # unbuffered: what was read is on disk if we are killed
        self.threshold = threshold
        self.head: (
            list[tuple[bool, bytes]] | None
        ) = []  # (from stderr, bytes), while under the threshold
        self.newlines = 0
        self.bytes = 0
        self.last_byte = b""
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.analyzer = LogAnalyzer()
        self.progress: _Progress | None = None

    def write(self, chunk: bytes, from_stderr: bool = False) -> None:
        self.fh.write(chunk)
        self.bytes += len(chunk)
        self.newlines += chunk.count(b"\n")
        self.last_byte = chunk[-1:]
        if self.head is not None:
            self.head.append((from_stderr, chunk))
            if self.lines > self.threshold:
                self.head = None  # over the threshold: the file alone holds the log
        text = self.decoder.decode(chunk)
        self.analyzer.feed(text)
        if self.progress is not None:
            self.progress.tick(self)

    @property
    def lines(self) -> int:
        return self.newlines + (1 if self.last_byte not in (b"", b"\n") else 0)

    def finish(self) -> Findings:
        tail = self.decoder.decode(b"", final=True)
        if tail:
            self.analyzer.feed(tail)
        self.fh.flush()
        os.fsync(self.fh.fileno())
        self.fh.close()
        return self.analyzer.close()

    def discard(self) -> None:
        if not self.fh.closed:
            self.fh.close()
        self.tmp.unlink(missing_ok=True)


class _Progress:
    """One self-overwriting line on a terminal's stderr while the command runs: lines so far, elapsed time
    and the latest failure seen; erased before anything else is printed."""

    INTERVAL_S = 0.25

    def __init__(self, stream: BinaryIO):
        self.stream = stream
        self.started = time.monotonic()
        self.shown_at = 0.0
        self.shown = False

    def tick(self, spool: _Spool) -> None:
        now = time.monotonic()
        if now - self.shown_at < self.INTERVAL_S:
            return
        self.shown_at = now
        findings = spool.analyzer.findings
        latest = ""
        if (f := findings.latest) is not None:
            latest = f" · latest: {f.code}" + (f" at {f.location}" if f.location else "")
        line = f"k0maru offload: {spool.lines:,} lines · {now - self.started:.1f} s · {findings.total:,} failure(s){latest}"
        self.stream.write(f"\r\x1b[2K{line[:160]}".encode())
        self.stream.flush()
        self.shown = True

    def erase(self) -> None:
        if self.shown:
            self.stream.write(b"\r\x1b[2K")
            self.stream.flush()
            self.shown = False


def run_offload(  # noqa: C901, PLR0913 - the whole run, its interruption and its record, in order
    vault: Path,
    command: list[str] | None,
    *,
    threshold: int = 50,
    task_id: str | None = None,
    stdin: BinaryIO | None = None,
    out: BinaryIO | None = None,
    err: BinaryIO | None = None,
    save_record: Callable[[records.OffloadRecord], None] | None = None,
    progress: bool | None = None,
) -> OffloadOutcome:
    """Run `command` (or read `stdin`), streaming its combined output into the log spool. A short output
    passes through with the child's stderr on `err`; `progress` (default: when stderr is a terminal) shows
    a live line on stderr while the command runs."""
    out = out or sys.stdout.buffer
    err = err or sys.stderr.buffer
    if progress is None:
        progress = sys.stderr.isatty()
    refs = ensure_state_dir(vault) / "refs"
    refs.mkdir(exist_ok=True)
    for kept in keep_orphaned_spools(refs):
        print(
            f"k0maru: kept the output of an interrupted offload as {kept.relative_to(vault)}",
            file=sys.stderr,
        )
    task = safe_task_id(task_id) if task_id else default_task_id(vault)
    spool = _Spool(refs, threshold)
    if progress:
        spool.progress = _Progress(err)
    started = time.time()
    exit_code: int | None
    try:
        if command:
            exit_code = _pump_process(command, spool)
        else:
            source = stdin or sys.stdin.buffer
            while chunk := source.read(READ_SIZE):
                spool.write(chunk)
            exit_code = None
        findings = spool.finish()
    except BaseException:
        if spool.progress is not None:
            spool.progress.erase()
        if spool.bytes:  # interrupted: what was captured is kept, never silently dropped
            spool.fh.close()
            kept = refs / f"partial-{os.getpid()}-{int(started)}.log"
            spool.tmp.replace(kept)
            print(
                f"k0maru: interrupted; the output so far is in {kept.relative_to(vault)}",
                file=sys.stderr,
            )
        else:
            spool.discard()
        raise
    if spool.progress is not None:
        spool.progress.erase()
    status = exit_code if exit_code is not None else 0
    if (
        spool.head is not None
    ):  # at or under the threshold: pass through unchanged, stderr to stderr
        for (
            from_stderr,
            chunk,
        ) in spool.head:  # flushed chunk by chunk: the two streams keep their order
            stream = err if from_stderr else out
            stream.write(chunk)
            stream.flush()
        spool.discard()
        return OffloadOutcome(status, spool.lines, True, findings=findings)

    cmd_text = shlex.join(command) if command else "<stdin>"
    node = hash_bytes(f"{task}|{cmd_text}|{started}|{os.getpid()}".encode())[:8]
    final = refs / f"{task}_{node}.log"
    os.replace(spool.tmp, final)
    log_rel = final.relative_to(vault).as_posix()
    raw_tokens, estimator = count_log_tokens(final)
    diagram = summary.mermaid(cmd_text, findings, exit_code, spool.lines)
    text = summary.render(
        command=cmd_text,
        findings=findings,
        exit_code=exit_code,
        lines=spool.lines,
        raw_tokens=raw_tokens,
        log_rel=log_rel,
        node_id=node,
        estimator=estimator,
        diagram=diagram,
    )

    def with_savings(summary_tokens: int) -> str:
        saved = max(raw_tokens - summary_tokens, 0)
        pct = 100 * saved / raw_tokens if raw_tokens else 0.0
        saved_lines = max(spool.lines - text.count("\n") - 2, 0)
        return f"{text}\nsaved {saved_lines:,} lines / {saved:,} tokens ({pct:.1f}%) · tokens: {estimator}"

    summary_tokens = count_tokens(text)
    for _ in range(2):  # the savings line is part of the summary: settle its own token count
        final_text = with_savings(summary_tokens)
        summary_tokens = count_tokens(final_text)
    text = final_text
    if (
        summary_tokens > raw_tokens * MAX_SUMMARY_SHARE
    ):  # not clearly smaller: the output itself is the answer
        with final.open("rb") as fh:
            while chunk := fh.read(READ_SIZE):
                out.write(chunk)
        out.flush()
        final.unlink(missing_ok=True)
        return OffloadOutcome(status, spool.lines, True, findings=findings)
    rec = records.OffloadRecord(
        node_id=node,
        task_id=task,
        created_at=started,
        command=cmd_text,
        exit_code=exit_code,
        log_path=log_rel,
        raw_lines=spool.lines,
        raw_bytes=spool.bytes,
        raw_tokens=raw_tokens,
        summary_tokens=summary_tokens,
        estimator=estimator,
        stack=findings.stacks,
        error_codes=findings.error_codes,
        first_location=findings.first_location,
        failures=[f.as_dict() for f in findings.all_failures[:200]],
        mermaid=diagram,
        summary=text,
    )
    if save_record is not None:
        save_record(rec)
    out.write((text + "\n").encode("utf-8"))
    out.flush()
    return OffloadOutcome(status, spool.lines, False, rec, findings)


GRACE_S = 5.0  # after a forwarded SIGINT/SIGTERM, the child's group gets SIGKILL if still running


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """Linux: the child gets SIGKILL if offload itself dies (kill -9), so no orphan keeps running."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def _pump_process(command: list[str], spool: _Spool) -> int:
    """Run `command` in its own process group, its output into the spool. SIGINT/SIGTERM/SIGHUP to offload
    go to the whole group; a child that ignores them gets SIGKILL after GRACE_S (at once on a second
    signal). Stdin is passed on unless it is a terminal (a background group reading it would stop)."""
    stdin = subprocess.DEVNULL if sys.stdin is None or sys.stdin.isatty() else None
    try:
        proc = subprocess.Popen(
            command,
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
            process_group=0,
            preexec_fn=_die_with_parent if sys.platform == "linux" else None,
        )
    except FileNotFoundError:
        raise CommandNotFound(
            f"command not found: {command[0]!r}; check the name and PATH"
        ) from None
    except PermissionError:
        raise K0maruError(
            f"command {command[0]!r} is not executable; check its permissions"
        ) from None
    signals_seen = 0

    def kill_group(signum: int) -> None:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signum)

    def forward(signum: int, _frame: object) -> None:
        nonlocal signals_seen
        signals_seen += 1
        if signals_seen > 1:
            kill_group(signal.SIGKILL)
            return
        kill_group(signum)
        timer = threading.Timer(GRACE_S, kill_group, args=(signal.SIGKILL,))
        timer.daemon = True
        timer.start()

    previous = {
        s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    }
    try:
        assert proc.stdout is not None and proc.stderr is not None
        with selectors.DefaultSelector() as sel:  # both pipes, in the order their bytes arrive
            sel.register(proc.stdout.fileno(), selectors.EVENT_READ, False)
            sel.register(proc.stderr.fileno(), selectors.EVENT_READ, True)
            while sel.get_map():
                for key, _ in sel.select():
                    chunk = os.read(key.fd, READ_SIZE)
                    if chunk:
                        spool.write(chunk, key.data)
                    else:
                        sel.unregister(key.fd)
        return _exit_status(proc.wait())
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        kill_group(signal.SIGKILL)  # nothing of the group outlives offload


def keep_orphaned_spools(refs: Path) -> list[Path]:
    """Spools of an offload that was killed (its pid is gone) become `partial-<pid>-<n>.log`: kept, not lost."""
    kept: list[Path] = []
    for tmp in refs.glob(".offload-*.tmp"):
        parts = tmp.name.split("-")
        pid = int(parts[1]) if len(parts) > 2 and parts[1].isdigit() else None
        if pid is None or pid == os.getpid() or _alive(pid):
            continue
        target = refs / f"partial-{pid}-{len(kept)}.log"
        with contextlib.suppress(OSError):
            tmp.replace(target)
            kept.append(target)
    return kept


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
