"""Where notes and offload meet: what one needs of the other, handed in by the service, so that
neither imports the other (tests/test_architecture.py). Distill reads failures with offload's
analyzer; offload's `seen before` leaves out the cards distill wrote without a fix."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from k0maru.notes.distill import FailureReading, LoggedTrace
    from k0maru.offload.findings import Failure
    from k0maru.wiring.vault import Vault


def failure_reading(vault: Vault) -> FailureReading:
    """Offload's reading of failures, for distill: pasted text, a message's shape, a kept log."""
    from k0maru.notes.distill import FailureReading
    from k0maru.offload.seen import shape
    from k0maru.offload.traces import analyze_trace

    return FailureReading(
        analyze=analyze_trace, shape=shape, logged=lambda node: logged_trace(vault, node)
    )


def logged_trace(vault: Vault, node: str) -> LoggedTrace:
    """The failures of the log offloaded as `node` (its record read through the index)."""
    from k0maru.notes.distill import LoggedTrace
    from k0maru.offload import records
    from k0maru.offload.traces import log_failures

    rec = records.get(vault.store, node)
    findings, lines = log_failures(records.log_file(vault.root, rec))
    return LoggedTrace(rec.node_id, rec.command, findings, lines)


def seen_before(vault: Vault, failure: Failure | None) -> str | None:
    """The vault's note about the same failure (`offload.seen`), never a card distill wrote that
    records no fix (`notes.fix_hints`)."""
    from k0maru.notes.fix_hints import unfixed_card
    from k0maru.offload.seen import seen_before

    return seen_before(vault, failure, unfixed_card)
