"""`k0maru offload`: run a command (or read stdin), keep the full log, print a summary past the
threshold."""

from __future__ import annotations

import codecs
import contextlib
import errno
import os
import queue
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
from k0maru.offload import records, reflog, summary
from k0maru.offload.analyzer import LogAnalyzer
from k0maru.offload.findings import Failure, Findings
from k0maru.offload.tokencount import LogTokens, count_log_tokens
from k0maru.text import shorten

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


class CommandNotExecutable(K0maruError):
    exit_code = 126  # as a shell reports it


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
    """Everything read goes to a temp log in .k0maru/refs; the first `threshold` lines are also kept
    in memory so a short output can be passed through untouched. Past them, the log's tokens are
    counted as it arrives (`_Counting`) and it is read for failures as it arrives (`LogAnalyzer`):
    little is left to do once the command ends. When the log cannot be kept (a full disk, an I/O
    error, `.k0maru/` gone), what it holds is passed to the terminal and the rest of the output
    follows it there as it arrives: `broken` says why."""

    def __init__(
        self,
        refs: Path | None,
        threshold: int,
        out: BinaryIO,
        err: BinaryIO,
        tree: Path | None = None,
        broken: str | None = None,
    ):
        self.out, self.err = out, err
        self.broken = broken
        self.path: Path | None = None  # the log file while it is kept
        self.fh: BinaryIO | None = None
        if broken is None and refs is not None:
            try:
                refs.mkdir(parents=True, exist_ok=True)
                fd, tmp = tempfile.mkstemp(
                    prefix=f".offload-{os.getpid()}-", suffix=".tmp", dir=refs
                )
                self.path = Path(tmp)
                # unbuffered: what was read is on disk if we are killed; readable to pass it on
                self.fh = os.fdopen(fd, "w+b", buffering=0)
            except OSError as exc:
                self.broken = why(exc)
        self.threshold = threshold
        # (from stderr, bytes), while under the threshold
        self.head: list[tuple[bool, bytes]] | None = []
        self.newlines = 0
        self.bytes = 0
        self.written = 0  # bytes of the log on disk
        self.last_byte = b""
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.analyzer = LogAnalyzer(tree)
        self.progress: _Progress | None = None
        self.counting: _Counting | None = None  # past the threshold

    @property
    def tmp(self) -> Path:
        assert self.path is not None
        return self.path

    def write(self, chunk: bytes, from_stderr: bool = False) -> None:
        self.bytes += len(chunk)
        self.newlines += chunk.count(b"\n")
        self.last_byte = chunk[-1:]
        if self.broken is not None:
            self._show(chunk, from_stderr)
            return
        assert self.fh is not None
        done = 0
        try:
            while done < len(chunk):  # a short write (a filling disk) is not an error yet
                done += self.fh.write(chunk[done:]) or 0
                self.written = self.bytes - len(chunk) + done
        except OSError as exc:
            rest = chunk if self.head is not None else chunk[done:]  # the head holds none of it
            self.give_up(exc)
            self._show(rest, from_stderr)
            return
        if self.head is not None:
            self.head.append((from_stderr, chunk))
            if self.lines > self.threshold:  # over the threshold: the file alone holds the log
                self.counting = _Counting([piece for _, piece in self.head])
                self.head = None
        elif self.counting is not None:
            self.counting.put(chunk)
        text = self.decoder.decode(chunk)
        self.analyzer.feed(text)
        if self.progress is not None:
            self.progress.tick(self)

    def _show(self, chunk: bytes, from_stderr: bool) -> None:
        if self.progress is not None:
            self.progress.erase()
        stream = self.err if from_stderr else self.out
        stream.write(chunk)
        stream.flush()

    def give_up(self, exc: Exception) -> None:
        """The log cannot be kept: pass on what it holds (from memory while under the threshold,
        else read back from the file), then drop the file so the disk gets its space back."""
        if self.broken is not None:
            return
        self.broken = why(exc, self.path)
        if self.head is not None:
            for from_stderr, chunk in self.head:
                self._show(chunk, from_stderr)
        elif self.fh is not None:
            offset = 0
            try:
                while offset < self.written:
                    piece = os.pread(
                        self.fh.fileno(), min(READ_SIZE, self.written - offset), offset
                    )
                    if not piece:
                        break
                    self._show(piece, False)
                    offset += len(piece)
            except OSError as again:
                self.broken += (
                    f"; the first {self.written - offset:,} bytes are lost ({why(again)})"
                )
        self.head = None
        self.discard()

    @property
    def lines(self) -> int:
        return self.newlines + (1 if self.last_byte not in (b"", b"\n") else 0)

    def finish(self) -> Findings:
        tail = self.decoder.decode(b"", final=True)
        if tail:
            self.analyzer.feed(tail)
        if self.fh is not None and self.broken is None:
            try:
                os.fsync(self.fh.fileno())
            except OSError as exc:
                self.give_up(exc)
        return self.analyzer.close()

    def raw_tokens(self) -> tuple[int, str]:
        """(tokens, estimator) of the log kept (`tokencount`)."""
        if self.counting is None:  # never past the threshold
            return count_log_tokens(self.tmp)
        return self.counting.result()

    def discard(self) -> None:
        if self.counting is not None:
            self.counting.drop()
        if self.fh is not None and not self.fh.closed:
            self.fh.close()
        if self.path is not None:
            with contextlib.suppress(OSError):
                self.path.unlink(missing_ok=True)
        self.path = None


class _Counting:
    """A log's tokens counted in a thread of their own as its chunks arrive (`LogTokens`): the
    reader only queues them, and a tokenizer still loading holds up neither it nor the command."""

    def __init__(self, chunks: list[bytes]):
        self.chunks: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        for chunk in chunks:
            self.chunks.put(chunk)
        self.counter = LogTokens()
        self.error: Exception | None = None
        self.dropped = False  # the count is not wanted: the chunks left are skipped
        self.thread = threading.Thread(
            target=self._count, name="k0maru-offload-tokens", daemon=True
        )
        self.thread.start()

    def put(self, chunk: bytes) -> None:
        self.chunks.put(chunk)

    def _count(self) -> None:
        while (chunk := self.chunks.get()) is not None:
            if self.error is None and not self.dropped:
                try:
                    self.counter.feed(chunk)
                except Exception as exc:  # raised again to the caller of `result`
                    self.error = exc

    def drop(self) -> None:
        """The count is not wanted (the log is not kept, or the run was interrupted): the thread
        skips what is queued and ends."""
        self.dropped = True
        self.chunks.put(None)

    def result(self) -> tuple[int, str]:
        """The count, once the thread has counted every chunk queued."""
        self.chunks.put(None)
        self.thread.join()
        if self.error is not None:
            raise self.error
        return self.counter.result()


def why(exc: Exception, path: Path | None = None) -> str:
    """`No space left on device: .k0maru/refs/x.log`: the reason, and the file when it is known."""
    errno = getattr(exc, "errno", None)
    reason = os.strerror(errno) if isinstance(errno, int) and errno else str(exc) or repr(exc)
    name = getattr(exc, "filename", None) or path
    if name:
        with contextlib.suppress(ValueError):
            name = Path(name).relative_to(Path.cwd())
        return f"{reason}: {name}"
    return reason


class _Progress:
    """One self-overwriting line on a terminal's stderr while the command runs: lines so far,
    elapsed time and the latest failure seen; erased before anything else is printed."""

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


def run_offload(  # noqa: PLR0913 - the run and everything its caller may say about it
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
    cannot_keep: str | None = None,
    tree: Path | None = None,
    seen: Callable[[Failure | None], str | None] | None = None,
) -> OffloadOutcome:
    """Run `command` (or read `stdin`), streaming its combined output into the log spool. A short
    output passes through with the child's stderr on `err`; `progress` (default: when stderr is a
    terminal) shows a live line on stderr while the command runs. `tree` holds the user's code
    (default: the current folder, or its repository's root when the log is piped in). When the log
    cannot be kept (`cannot_keep`, or a full disk, an I/O error or `.k0maru/` gone while it runs),
    the output passes through, the exit status is still the command's, and one line on stderr says
    why. `seen` names the vault's note about the same failure, if any (`offload.seen`)."""
    out = out or sys.stdout.buffer
    err = err or sys.stderr.buffer
    task = safe_task_id(task_id) if task_id else default_task_id(vault)
    refs, cannot_keep = _open_refs(vault, cannot_keep)
    spool = _Spool(refs, threshold, out, err, _tree_of(tree, command), cannot_keep)
    if _shows_progress(progress):
        spool.progress = _Progress(err)
    started = time.time()
    clock = time.monotonic()
    exit_code, findings = _capture(vault, refs, spool, command, stdin, started)
    duration = round(time.monotonic() - clock, 3)
    status = exit_code if exit_code is not None else 0
    if spool.head is not None and spool.broken is None:
        _replay_head(spool, out, err)
        return OffloadOutcome(status, spool.lines, True, findings=findings)
    rec: records.OffloadRecord | None = None
    if refs is not None and spool.broken is None:
        try:
            run = _Run(vault, refs, spool, findings, command, task, started, duration, exit_code)
            rec = _keep(run, seen)
        except Exception as exc:  # whatever fails, the output still reaches its reader
            spool.give_up(exc)
    if spool.broken is not None:
        _say_not_kept(spool, threshold)
        return OffloadOutcome(status, spool.lines, True, findings=findings)
    if rec is None:  # not clearly smaller: the output itself is the answer
        _replay_spool(spool, out)
        return OffloadOutcome(status, spool.lines, True, findings=findings)
    _deliver(spool, rec, out, save_record)
    return OffloadOutcome(status, spool.lines, False, rec, findings)


def _shows_progress(progress: bool | None) -> bool:
    """Whether a live line shows on stderr: as asked, else when stderr is a terminal."""
    return bool(progress or (progress is None and sys.stderr.isatty()))


def _tree_of(tree: Path | None, command: list[str] | None) -> Path:
    """The folder of the user's code: `tree`, else the current folder (a command's), or its
    repository's root when the log is piped in."""
    if tree is not None:
        return tree
    from k0maru.gitutil import repo_root

    here = Path.cwd()
    return here if command else (repo_root(here) or here)


def _say_not_kept(spool: _Spool, threshold: int) -> None:
    """One line on stderr: the log could not be kept (a shorter output passes through untouched
    anyway: no word)."""
    if spool.lines > threshold:
        print(
            f"k0maru: the log could not be kept ({spool.broken}); the output was passed through",
            file=sys.stderr,
        )


def _deliver(
    spool: _Spool,
    rec: records.OffloadRecord,
    out: BinaryIO,
    save_record: Callable[[records.OffloadRecord], None] | None,
) -> None:
    """The kept log's summary to `out`, its record saved; the spool goes (the compressed log holds
    it all now)."""
    spool.discard()
    if save_record is not None:
        save_record(rec)
    out.write((rec.summary + "\n").encode("utf-8"))
    out.flush()


def _open_refs(vault: Path, cannot_keep: str | None) -> tuple[Path | None, str | None]:
    """The folder kept logs go to, the output of interrupted offloads kept first; or None and why
    the log cannot be kept."""
    if cannot_keep is not None:
        return None, cannot_keep
    try:
        refs = ensure_state_dir(vault) / "refs"
        refs.mkdir(exist_ok=True)
        for kept in keep_orphaned_spools(refs):
            print(
                f"k0maru: kept the output of an interrupted offload as {kept.relative_to(vault)}",
                file=sys.stderr,
            )
    except OSError as exc:
        return None, why(exc)
    return refs, None


def _capture(
    vault: Path,
    refs: Path | None,
    spool: _Spool,
    command: list[str] | None,
    stdin: BinaryIO | None,
    started: float,
) -> tuple[int | None, Findings]:
    """Run the command (or read stdin) into the spool: its exit status (None when piped) and
    findings. Interrupted, what was captured is kept as `partial-*.log`, never silently dropped."""
    try:
        exit_code: int | None = None
        if command:
            exit_code = _pump_process(command, spool)
        else:
            source = stdin or sys.stdin.buffer
            while chunk := source.read(READ_SIZE):
                spool.write(chunk)
        findings = spool.finish()
    except BaseException:
        if spool.progress is not None:
            spool.progress.erase()
        if spool.written and refs is not None and spool.broken is None:
            kept = refs / f"partial-{os.getpid()}-{int(started)}.log"
            with contextlib.suppress(OSError):
                spool.tmp.replace(kept)
                print(
                    f"k0maru: interrupted; the output so far is in {kept.relative_to(vault)}",
                    file=sys.stderr,
                )
        spool.discard()
        raise
    if spool.progress is not None:
        spool.progress.erase()
    return exit_code, findings


def _replay_head(spool: _Spool, out: BinaryIO, err: BinaryIO) -> None:
    """A short output, passed through unchanged: stderr to stderr, chunk by chunk so the two streams
    keep their order."""
    assert spool.head is not None
    for from_stderr, chunk in spool.head:
        stream = err if from_stderr else out
        stream.write(chunk)
        stream.flush()
    spool.discard()


def _replay_spool(spool: _Spool, out: BinaryIO) -> None:
    """The whole spooled output, passed through to `out`."""
    assert spool.fh is not None
    offset = 0
    while piece := os.pread(spool.fh.fileno(), READ_SIZE, offset):
        out.write(piece)
        offset += len(piece)
    out.flush()
    spool.discard()


@dataclass(frozen=True, slots=True)
class _Run:
    """Everything a kept log's record is made of: where it goes, its spool and findings, the
    command and task, when it started (epoch seconds), how long it ran, and its exit status."""

    vault: Path
    refs: Path
    spool: _Spool
    findings: Findings
    command: list[str] | None
    task: str
    started: float
    duration: float
    exit_code: int | None


def _keep(
    run: _Run, seen: Callable[[Failure | None], str | None] | None = None
) -> records.OffloadRecord | None:
    """The record of a kept log, its sidecar written and the log renamed into place; None when the
    summary is not clearly smaller than the log (the caller passes the log through). The log is
    compressed while its summary is written."""
    spool = run.spool
    assert spool.fh is not None
    packing = _Packing(spool.fh.fileno(), spool.written, run.refs)
    try:
        rec = _record(run, seen)
        if rec is None:
            return None
        packed = packing.result()
        try:
            records.write_sidecar(run.vault, rec)  # first: a log in place always has its record
            os.replace(packed, run.vault / rec.log_path)
            packing.path = None  # in place
        except OSError:
            records.sidecar_of(run.vault, rec).unlink(missing_ok=True)
            raise
        return rec
    finally:
        packing.discard()


class _Packing:
    """The kept log compressed into a temp file of `refs` (`reflog.write`) in a thread of its own:
    zlib lets go of the GIL, so the summary is written meanwhile."""

    def __init__(self, fd: int, size: int, refs: Path):
        self.path: Path | None = None
        self.error: Exception | None = None
        self.thread = threading.Thread(
            target=self._pack, args=(fd, size, refs), name="k0maru-offload-pack", daemon=True
        )
        self.thread.start()

    def _pack(self, fd: int, size: int, refs: Path) -> None:
        try:
            self.path = reflog.write(fd, size, refs)
        except Exception as exc:  # raised again to the caller of `result`
            self.error = exc

    def result(self) -> Path:
        self.thread.join()
        if self.error is not None:
            raise self.error
        assert self.path is not None
        return self.path

    def discard(self) -> None:
        """The compressed copy goes unless it was renamed into place."""
        self.thread.join()
        if self.path is not None:
            self.path.unlink(missing_ok=True)


def _record(
    run: _Run, seen: Callable[[Failure | None], str | None] | None
) -> records.OffloadRecord | None:
    """The record of a kept log and its summary; None when the summary is not clearly smaller than
    the log."""
    spool, findings, exit_code, command = run.spool, run.findings, run.exit_code, run.command
    task, started = run.task, run.started
    cmd_text = shlex.join(command) if command else "<stdin>"
    node = hash_bytes(f"{task}|{cmd_text}|{started}|{os.getpid()}".encode())[:8]
    final = run.refs / f"{task}_{node}{reflog.SUFFIX}"
    log_rel = final.relative_to(run.vault).as_posix()
    raw_tokens, estimator = spool.raw_tokens()
    failed = findings.failed(exit_code)
    note = _seen_note(seen, findings) if failed else None
    text = summary.render(
        seen=note,
        command=cmd_text,
        findings=findings,
        exit_code=exit_code,
        lines=spool.lines,
        raw_tokens=raw_tokens,
        log_rel=log_rel,
        node_id=node,
        tail=last_lines(spool.tmp, spool.lines),
    )

    def with_savings(summary_tokens: int) -> str:
        saved = max(raw_tokens - summary_tokens, 0)
        pct = 100 * saved / raw_tokens if raw_tokens else 0.0
        saved_lines = max(spool.lines - text.count("\n") - 2, 0)
        return f"{text}\nsaved {saved_lines:,} lines / {saved:,} tokens ({pct:.1f}%) · tokens: {estimator}"

    def tokens_of(summary_text: str) -> int:
        """Counted with the node id as a fixed placeholder: the same log, the same figures."""
        return count_tokens(summary_text.replace(node, summary.NODE_PLACEHOLDER))

    summary_tokens = tokens_of(text)
    for _ in range(2):  # the savings line is part of the summary: settle its own token count
        final_text = with_savings(summary_tokens)
        summary_tokens = tokens_of(final_text)
    if summary_tokens > raw_tokens * MAX_SUMMARY_SHARE or _wordier(final_text, spool):
        return None
    root = findings.root
    return records.OffloadRecord(
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
        stack=[s for s in findings.stacks if s != "generic"],
        error_codes=findings.error_codes,
        first_location=findings.first_location if failed else None,
        failures=[f.as_dict() for f in (findings.all_failures or ([root] if root else []))[:200]]
        if failed
        else [],
        mermaid=summary.mermaid(cmd_text, findings, exit_code, spool.lines),
        summary=final_text,
        duration_s=run.duration,
    )


def _seen_note(
    seen: Callable[[Failure | None], str | None] | None, findings: Findings
) -> str | None:
    """The vault's note about the same failure, if any (an index that cannot answer names none)."""
    if seen is None:
        return None
    try:
        return seen(findings.root)
    except Exception:
        return None


def _wordier(text: str, spool: _Spool) -> bool:
    """The summary has more words than a short log (a log's words are read only when it is short):
    passing the log through costs less."""
    if spool.written > 64 * 1024:
        return False
    assert spool.fh is not None
    return more_words(
        text, os.pread(spool.fh.fileno(), spool.written, 0).decode("utf-8", "replace")
    )


def more_words(summary: str, log: str) -> bool:
    """`summary` has more words than `log` shows: its colour escapes are no words."""
    from k0maru.offload.analyzer import ANSI

    return len(summary.split()) > len(ANSI.sub("", log).split())


def last_lines(path: Path, total: int, count: int = summary.SHOWN_TAIL) -> list[tuple[int, str]]:
    """The log's last `count` lines as (line number, text), colour removed and each clipped."""
    from k0maru.offload.analyzer import ANSI

    size = path.stat().st_size
    with path.open("rb") as fh:
        fh.seek(max(size - (1 << 16), 0))
        data = fh.read()
    text = data.decode("utf-8", "replace")
    rows = text.split("\n")
    if text.endswith("\n"):
        rows.pop()
    if size > len(data):
        rows = rows[1:]  # the first may be a line's end
    rows = rows[-count:]
    out: list[tuple[int, str]] = []
    for i, row in enumerate(rows):
        row = ANSI.sub("", row).rstrip("\r").rsplit("\r", 1)[-1].rstrip()
        out.append((total - len(rows) + 1 + i, shorten(row, 300)))
    return out


GRACE_S = 5.0  # after a forwarded SIGINT/SIGTERM, the child's group gets SIGKILL if still running


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """Linux: the child gets SIGKILL if offload itself dies (kill -9), so no orphan keeps
    running."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def _pump_process(command: list[str], spool: _Spool) -> int:
    """Run `command` in its own process group, its output into the spool. SIGINT/SIGTERM/SIGHUP to
    offload go to the whole group; a child that ignores them gets SIGKILL after GRACE_S (at once on
    a second signal)."""
    proc = _start(command)
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
        _read_both(proc, spool)
        return _exit_status(proc.wait())
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        kill_group(signal.SIGKILL)  # nothing of the group outlives offload


def _start(command: list[str]) -> subprocess.Popen[bytes]:
    """The command in its own process group, its two output pipes unbuffered. Stdin is passed on
    unless it is a terminal (a background group reading it would stop)."""
    stdin = subprocess.DEVNULL if sys.stdin is None or sys.stdin.isatty() else None
    try:
        return subprocess.Popen(
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
        raise CommandNotExecutable(
            f"command {command[0]!r} is not executable; check its permissions (chmod +x) or "
            "run it through its interpreter"
        ) from None
    except OSError as exc:
        if exc.errno != errno.ENOEXEC:
            raise
        raise CommandNotExecutable(
            f"command {command[0]!r} cannot be run: not a program this system runs and no #! "
            "line; run it through its interpreter"
        ) from None


def _read_both(proc: subprocess.Popen[bytes], spool: _Spool) -> None:
    """Both pipes into the spool, in the order their bytes arrive, until both close."""
    assert proc.stdout is not None and proc.stderr is not None
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout.fileno(), selectors.EVENT_READ, False)
        sel.register(proc.stderr.fileno(), selectors.EVENT_READ, True)
        while sel.get_map():
            for key, _ in sel.select():
                chunk = os.read(key.fd, READ_SIZE)
                if chunk:
                    spool.write(chunk, key.data)
                else:
                    sel.unregister(key.fd)


def keep_orphaned_spools(refs: Path) -> list[Path]:
    """Spools of an offload that was killed (its pid is gone) become `partial-<pid>-<n>.log`: kept,
    not lost. A compressed copy it was writing goes: its spool holds the whole log."""
    for part in refs.glob(".offload-*.gz.part"):
        owner = part.name.split("-")[1]
        if owner.isdigit() and int(owner) != os.getpid() and not _alive(int(owner)):
            with contextlib.suppress(OSError):
                part.unlink()
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
