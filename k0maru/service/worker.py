"""The one background indexing worker per vault.

A git hook only asks for work (`request()`): it touches `.k0maru/reindex-wanted` and spawns `k0maru
worker` unless one already holds `.k0maru/worker.lock`. The worker scans, embeds in slices and
refreshes BM25 until nothing is left and nobody asked again, so a request made while it was
finishing is never lost. A failure is kept in `.k0maru/worker-error` (one line) until a later run
succeeds: the next hook shows it on stderr."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from k0maru.errors import K0maruError
from k0maru.fsutil import ensure_state_dir, open_append, open_regular, read_text
from k0maru.layout import STATE_DIR

if TYPE_CHECKING:  # a git hook imports this module: nothing of the index
    from k0maru.index.scan_result import ProgressFn
    from k0maru.wiring.vault import Vault

WANTED = "reindex-wanted"
LOCK = "worker.lock"
ERROR = "worker-error"
LOG = "hooks.log"
LOG_MAX_BYTES = 1_000_000
EMBED_SLICE = (
    512  # chunks embedded between two looks at the notes: a new commit waits at most one slice
)
# how long `k0maru scan`'s own embedding runs (someone waits on it), in slices of SCAN_SLICE (a
# slice took 7 s under a load of 10 on two cores): the chunks left then are a background worker's
SCAN_EMBED_S = 20.0
SCAN_SLICE = 32
PROBE_TRIES = 100  # a lock only `running()` probes hold is tried again, for 0.1 s at most
# a locked index: first wait, longest wait, give up after (kept)
LOCKED_RETRY_S = (
    0.5,
    30.0,
    3600.0,
)


def log_line(root: Path, message: str) -> None:
    """Append a timestamped line to `.k0maru/hooks.log` (rotated at LOG_MAX_BYTES); never raises."""
    try:
        path = ensure_state_dir(root) / LOG
        if path.exists() and path.stat().st_size > LOG_MAX_BYTES:
            path.replace(path.with_suffix(".log.1"))
        with open_append(path) as fh:  # a FIFO there would block the hook: refused
            fh.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {message}\n")
    except (OSError, K0maruError):  # K0maruError: a `.k0maru` that is no folder of the vault's
        pass


def request(root: Path, spawn: bool = True) -> bool:
    """Ask for the vault to be brought up to date; spawns the worker when none runs (and `spawn`).
    True when a worker was started."""
    state = ensure_state_dir(root)  # with its .gitignore: a first hook leaves `git status` clean
    (state / WANTED).touch()  # before the lock check: a worker finishing now sees it and goes again
    if not spawn or running(root):
        return False
    try:
        # the summary is logged by run(); stderr the unforeseen
        log: IO[str] = open_append(state / LOG)
    except OSError:
        log = open(os.devnull, "w")  # noqa: SIM115 - closed below, as the log
    with log:
        subprocess.Popen(
            [sys.executable, "-m", "k0maru", "worker", "--vault", str(root)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log,
            start_new_session=True,
            close_fds=True,
        )
    return True


def last_error(root: Path) -> str | None:
    """The line of the last failed worker run, None when the last run succeeded."""
    try:
        return read_text(root / STATE_DIR / ERROR, errors="replace").strip() or None
    except OSError:
        return None


def wanted(root: Path) -> bool:
    """Whether a request waits for a worker (it is taken when one starts)."""
    return (root / STATE_DIR / WANTED).exists()


def busy(root: Path) -> bool:
    """Whether a request waits for a worker or a worker runs (false once the vault is caught up)."""
    return (root / STATE_DIR / WANTED).exists() or running(root)


def running(root: Path) -> bool:
    """Whether a worker holds the lock; only reads, so it answers on a read-only `.k0maru/` too."""
    try:
        fh = open_regular(root / STATE_DIR / LOCK)
    except OSError:  # none, or not a lock a worker could hold (a FIFO there)
        return False
    with fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(fh, fcntl.LOCK_UN)
        return False


def _take(fh: IO[str]) -> bool:
    """The lock taken for this process, unless a worker holds it. A `running()` probe holds it
    shared for an instant: it is waited out, never mistaken for a worker (the embedder or worker
    that met one gave up, and a request could be left with none)."""
    for _ in range(PROBE_TRIES):
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            pass
        try:
            fcntl.flock(fh, fcntl.LOCK_SH | fcntl.LOCK_NB)  # taken too: only probes held it
        except BlockingIOError:
            return False  # a worker holds it
        fcntl.flock(fh, fcntl.LOCK_UN)
        time.sleep(0.001)
    return False


@contextmanager
def held(root: Path) -> Iterator[bool]:
    """The worker lock for the block, if no one else holds it: yields whether this process has
    it."""
    lock = root / STATE_DIR / LOCK
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open_append(lock) as fh:
        if not _take(fh):
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


class CatchUp:
    """What one worker run did (a plain class: dataclasses would cost a git hook the import of
    `inspect`)."""

    __slots__ = ("added", "modified", "removed", "embedded", "rounds", "elapsed_ms", "left")

    def __init__(self) -> None:
        self.added = self.modified = self.removed = self.embedded = self.rounds = 0
        self.left = 0  # chunks without a vector when a scan's time was up
        self.elapsed_ms = 0.0

    def __str__(self) -> str:
        return (
            f"worker: +{self.added} ~{self.modified} -{self.removed}, {self.embedded} chunk(s) embedded, "
            f"{self.rounds} round(s) in {self.elapsed_ms:.0f} ms"
            + (f"; {self.left} left to a background worker" if self.left else "")
        )


def run(root: Path, progress: ProgressFn | None = None, **flags: Any) -> CatchUp | None:
    """The worker: under the worker lock, catch up until nothing is left and no request is pending;
    returns what it did (also logged), None when another worker holds the lock. `progress(done,
    total)` follows the embedding: someone waits (`k0maru scan` hands its embedding over to this, in
    the same process, with its command-line flags), so it embeds for SCAN_EMBED_S at most and
    leaves what is left to a background worker it starts (`CatchUp.left`)."""
    from k0maru.errors import IndexLockedError

    done = None
    run_progress = RunProgress(progress) if progress else None
    budget = time.monotonic() + SCAN_EMBED_S if progress else None
    delay, longest, give_up = LOCKED_RETRY_S
    deadline = time.monotonic() + give_up
    while True:
        locked = None
        with held(root) as mine:
            if not mine:
                return done
            try:
                done = _catch_up(root, run_progress, done or CatchUp(), flags, budget)
            except IndexLockedError as exc:  # another process writes: the request is kept, retried
                if time.monotonic() + delay > deadline:
                    raise
                locked = exc
        if done is not None and done.left:  # the scan's time is up: a background worker goes on
            request(root)
            return done
        if locked is not None:
            log_line(root, f"worker: {locked}; retrying in {delay:.1f} s")
            time.sleep(delay)
            delay = min(delay * 2, longest)
            continue
        if not (
            root / STATE_DIR / WANTED
        ).exists():  # asked while we were releasing the lock: go again
            return done


def scan_bound(root: Path, pending: int) -> list[str]:
    """The line of a scan leaving `pending` chunks to embed, more than a slice: the worker it
    becomes embeds them for SCAN_EMBED_S at most (none when a background worker has them)."""
    if pending <= EMBED_SLICE or running(root):
        return []
    return [
        f"{pending} chunk(s) wait for vectors: this scan embeds them for at most "
        f"{SCAN_EMBED_S:.0f} s, then a background worker embeds the rest "
        "(`k0maru status` shows how many are left)"
    ]


def _time_up(budget: float | None, vault: Vault) -> bool:
    """Whether a scan's own embedding (`budget`: when it ends) is to stop, chunks being left."""
    return budget is not None and time.monotonic() > budget and vault.store.has_unembedded_chunks()


def _idle_check(root: Path, vault: Vault) -> None:
    """Caught up: the whole integrity check (at most hourly), its repairs logged; vectors it dropped
    are embedded by the next round."""
    for line in vault.idle_check():
        log_line(root, f"worker: {line}")
        (root / STATE_DIR / WANTED).touch()


class RunProgress:
    """The embedding progress of a whole run, over one total: what was done plus what was left when
    the round began (a round embeds a slice of it), growing only when new chunks arrive."""

    def __init__(self, progress: ProgressFn):
        self.progress = progress
        self.total = 0

    def round(self, before: int, left: int) -> ProgressFn:
        """`before` chunks embedded by earlier rounds, `left` without vectors now."""
        self.total = max(self.total, before + left)

        def report(n: int, total: int) -> None:
            self.total = max(self.total, before + total)
            self.progress(before + n, self.total)

        return report


def _catch_up(
    root: Path,
    run_progress: RunProgress | None,
    done: CatchUp,
    flags: dict[str, Any],
    budget: float | None = None,
) -> CatchUp:
    """Rounds of scan, BM25 and a slice of embedding until caught up; with `budget` (a scan's
    own run: when its time is up, `time.monotonic()`), in slices of SCAN_SLICE and stopping then,
    the chunks left counted in `done.left`."""
    from k0maru.errors import IndexReplacedError
    from k0maru.index import db
    from k0maru.wiring.vault import Vault

    t0 = time.perf_counter()
    wanted, error = root / STATE_DIR / WANTED, root / STATE_DIR / ERROR
    try:
        # taken even if the vault cannot open: the next git event asks again
        wanted.unlink(missing_ok=True)
        with Vault.open(root, **flags) as vault:
            vault.lean = (
                True  # its reads are few: mapped and cached pages would only add to its RSS
            )
            while True:
                done.rounds += 1
                try:
                    report = vault.index(
                        lexical=True,
                        keep_delta=True,  # the next query tokenises none of this run's notes
                        embed_limit=EMBED_SLICE if budget is None else min(SCAN_SLICE, EMBED_SLICE),
                        embed_progress=run_progress.round(
                            done.embedded, vault.store.unembedded_chunks()
                        )
                        if run_progress
                        else None,
                    )
                except IndexReplacedError:  # moved aside before a batch was written: nothing was
                    vault.reopen_if_replaced()
                    log_line(root, "worker: the index file was replaced; reopened it")
                    continue
                done.added += report.scan.added
                done.modified += report.scan.modified
                done.removed += report.scan.removed
                done.embedded += report.embedded
                if vault.reopen_if_replaced():  # a rebuild moved the index aside: on in the new one
                    log_line(root, "worker: the index file was replaced; reopened it")
                    continue
                if _time_up(budget, vault):
                    done.left = vault.store.unembedded_chunks()
                    break
                if wanted.exists():  # a git event since this round's scan: look again
                    wanted.unlink(missing_ok=True)
                elif not (report.embedded and vault.store.has_unembedded_chunks()):
                    break
            if not done.left:
                _idle_check(root, vault)
    except Exception as exc:
        from k0maru.errors import IndexLockedError

        err = (
            db.translate_error(exc, db.last_opened or "the index")
            if isinstance(exc, db.DatabaseError)
            else exc
        )
        if isinstance(err, IndexLockedError):  # the request stays: run() waits and tries again
            with suppress(OSError):
                wanted.touch()
            raise err from None
        line = f"worker failed: {err}"
        log_line(root, line)
        with suppress(OSError):
            error.write_text(f"{err}\n", encoding="utf-8")
        raise
    error.unlink(missing_ok=True)
    done.elapsed_ms += (time.perf_counter() - t0) * 1000
    log_line(root, str(done))
    return done
