"""`k0maru offload` as a service operation: run a command (or read stdin) into a kept log, record
it.

It streams a running process, so it opens the vault itself instead of a `Service` session: nothing
is scanned, and a vault that cannot be opened (none here, a full disk, an unwritable folder) still
runs the command: the same output and exit status, and at most one line on stderr."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from k0maru.errors import K0maruError

if TYPE_CHECKING:
    from k0maru.offload.findings import Failure
    from k0maru.offload.records import OffloadRecord
    from k0maru.service.models import OffloadRun
    from k0maru.wiring.vault import Vault


def offload(
    vault_dir: str | None,
    command: list[str] | None,
    *,
    threshold: int | None = None,
    task_id: str | None = None,
    stdin: BinaryIO | None = None,
    out: BinaryIO | None = None,
    on_open: Callable[[Path], None] | None = None,
) -> OffloadRun:
    """Run `command` (None: read stdin) through the offload spool of the vault at `vault_dir`.
    `on_open` gets the vault's root before the command starts; `out` receives what passes through;
    `stdin` replaces the process's standard input as the log read when there is no command."""
    from k0maru.offload.runner import run_offload
    from k0maru.wiring.vault import Vault

    try:
        vault = Vault.open(vault_dir, writes_state=True, offload_threshold=threshold)
    except Exception as exc:  # no vault, a full disk, a broken index: the command still runs
        outcome = run_offload(
            _somewhere(vault_dir),
            command,
            threshold=threshold or 50,
            task_id=task_id or "adhoc",
            cannot_keep=_not_kept(exc),
            stdin=stdin,
            out=out,
        )
        return _result(outcome.exit_code, outcome.lines, None)
    with vault:
        if on_open is not None:
            on_open(vault.root)
        outcome = run_offload(
            vault.root,
            command,
            threshold=vault.settings.offload_threshold,
            task_id=task_id,
            save_record=lambda rec: _record(vault, rec),
            seen=lambda root: _seen(vault, root),
            stdin=stdin,
            out=out,
        )
    return _result(outcome.exit_code, outcome.lines, outcome.record)


def _not_kept(exc: Exception) -> str:
    """Why the log cannot be kept: an OS error's reason and file, a k0maru error's `reason` (its
    hint says what to do about the vault, not about this command's log)."""
    from k0maru.offload.runner import why

    if isinstance(exc, OSError):
        return why(exc)
    return exc.reason if isinstance(exc, K0maruError) and exc.reason else str(exc)


def _somewhere(vault_dir: str | None) -> Path:
    """The vault the command names when it exists, else the working folder (nothing is kept
    there)."""
    from k0maru.layout import resolve_vault

    try:
        return resolve_vault(vault_dir)
    except K0maruError:
        return Path.cwd()


def _record(vault: Vault, rec: OffloadRecord) -> None:
    """Record a kept log and apply the size cap; the log and its sidecar are already safe on disk,
    so a failure here costs one warning, never the command's exit status."""
    from k0maru.offload import records

    try:
        records.save(vault.store, rec)
        cap = vault.settings.offload_max_mb
        if cap:
            records.prune(vault.store, vault.root, max_bytes=cap * 1_000_000)
    except Exception as exc:  # any failure of the index, one line
        print(
            f"k0maru: warning: log kept at {rec.log_path} but not recorded: {exc}", file=sys.stderr
        )


def _seen(vault: Vault, root: Failure | None) -> str | None:
    from k0maru.index.base_store import db_path
    from k0maru.service.bridges import seen_before

    return seen_before(vault, root) if db_path(vault.root).exists() else None


def _result(exit_code: int, lines: int, record: OffloadRecord | None) -> OffloadRun:
    from k0maru.service.models import OffloadRun

    return OffloadRun(
        exit_code=exit_code, lines=lines, record=record.as_dict() if record is not None else None
    )


def offloaded_before(vault_dir: str | None) -> bool:
    """Whether any log was ever offloaded here (its sidecar is kept beside it, even without an
    index)."""
    from k0maru.layout import resolve_vault
    from k0maru.offload.records import SIDECAR, refs_dir

    try:
        return any(refs_dir(resolve_vault(vault_dir)).glob(f"*{SIDECAR}"))
    except (OSError, K0maruError):
        return False


def check_log_view(lines: str | None, pattern: str | None, fixed: bool) -> None:
    """Refuse a bad line range or pattern before anything is opened (raises K0maruError)."""
    from k0maru.offload import slices

    if lines:
        slices.parse_range(lines)
    if pattern is not None:
        slices.compile_pattern(pattern, fixed)
