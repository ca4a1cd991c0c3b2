"""`k0maru offload`: run a command (or read stdin), keep the full log, print a summary past the threshold."""

from __future__ import annotations

import codecs
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
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
from k0maru.offload.tokencount import StreamingTokenCounter

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
        raise K0maruError(f"task id {task!r} has no usable characters; use letters, digits, '.', '_' or '-'")
    return cleaned


def _exit_status(code: int) -> int:
    return 128 + (-code) if code < 0 else code


class _Spool:
    """Everything read goes to a temp log in .k0maru/refs; the first `threshold` lines are also kept in
    memory so a short output can be passed through untouched."""

    def __init__(self, refs: Path, threshold: int):
        refs.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".offload-", suffix=".tmp", dir=refs)
        self.tmp = Path(tmp)
        self.fh = os.fdopen(fd, "wb")
        self.threshold = threshold
        self.head: list[bytes] | None = []
        self.newlines = 0
        self.bytes = 0
        self.last_byte = b""
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.analyzer = LogAnalyzer()
        self.tokens = StreamingTokenCounter()

    def write(self, chunk: bytes) -> None:
        self.fh.write(chunk)
        self.bytes += len(chunk)
        self.newlines += chunk.count(b"\n")
        self.last_byte = chunk[-1:]
        if self.head is not None:
            self.head.append(chunk)
            if self.lines > self.threshold:
                self.head = None  # over the threshold: the file alone holds the log
        text = self.decoder.decode(chunk)
        self.analyzer.feed(text)
        self.tokens.feed(text, len(chunk))

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


def run_offload(vault: Path, command: list[str] | None, *, threshold: int = 50, task_id: str | None = None,
                stdin: BinaryIO | None = None, out: BinaryIO | None = None,
                save_record: Callable[[records.OffloadRecord], None] | None = None) -> OffloadOutcome:
    """Run `command` (or read `stdin`), streaming its combined output into the log spool."""
    out = out or sys.stdout.buffer
    refs = ensure_state_dir(vault) / "refs"
    task = safe_task_id(task_id) if task_id else default_task_id(vault)
    spool = _Spool(refs, threshold)
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
        spool.discard()
        raise
    status = exit_code if exit_code is not None else 0
    if spool.head is not None:  # at or under the threshold: pass through unchanged
        for chunk in spool.head:
            out.write(chunk)
        out.flush()
        spool.discard()
        return OffloadOutcome(status, spool.lines, True, findings=findings)

    cmd_text = shlex.join(command) if command else "<stdin>"
    node = hash_bytes(f"{task}|{cmd_text}|{started}|{os.getpid()}".encode())[:8]
    final = refs / f"{task}_{node}.log"
    os.replace(spool.tmp, final)
    log_rel = final.relative_to(vault).as_posix()
    raw_tokens, estimator = spool.tokens.result()
    diagram = summary.mermaid(cmd_text, findings, exit_code, spool.lines)
    text = summary.render(command=cmd_text, findings=findings, exit_code=exit_code, lines=spool.lines,
                          raw_tokens=raw_tokens, log_rel=log_rel, node_id=node, estimator=estimator, diagram=diagram)

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
    rec = records.OffloadRecord(
        node_id=node, task_id=task, created_at=started, command=cmd_text, exit_code=exit_code, log_path=log_rel,
        raw_lines=spool.lines, raw_bytes=spool.bytes, raw_tokens=raw_tokens, summary_tokens=summary_tokens,
        estimator=estimator, stack=findings.stacks, error_codes=findings.error_codes,
        first_location=findings.first_location, failures=[f.as_dict() for f in findings.all_failures[:200]],
        mermaid=diagram, summary=text)
    if save_record is not None:
        save_record(rec)
    out.write((text + "\n").encode("utf-8"))
    out.flush()
    return OffloadOutcome(status, spool.lines, False, rec, findings)


def _pump_process(command: list[str], spool: _Spool) -> int:
    try:
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, bufsize=0)
    except FileNotFoundError:
        raise CommandNotFound(f"command not found: {command[0]!r}; check the name and PATH") from None
    except PermissionError:
        raise K0maruError(f"command {command[0]!r} is not executable; check its permissions") from None

    def forward(signum: int, _frame: object) -> None:
        if proc.poll() is None:
            proc.send_signal(signum)

    previous = {s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        while True:
            try:
                chunk = os.read(fd, READ_SIZE)
            except InterruptedError:  # pragma: no cover - PEP 475 retries, kept for safety
                continue
            if not chunk:
                break
            spool.write(chunk)
        return _exit_status(proc.wait())
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
