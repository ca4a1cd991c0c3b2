"""`k0maru doctor`: the whole integrity check of the index, and its repair."""

from __future__ import annotations

from k0maru.cli.output import Adder, emit, pending_vectors, service, warn

FIX = "run `k0maru doctor --fix` to repair it"


def doctor(vault: str | None, as_json: bool, fix: bool) -> int:
    """Exit 0 when the index is sound (or, with `fix`, was repaired), 1 when something is left.
    Chunks still waiting for vectors are no damage: said, with what finishes them."""
    with service(vault, as_json, rescan=False) as svc:
        report = svc.doctor(fix=fix)
        pending = svc.backlog().chunks_pending_embedding if report.sound else 0

    def human() -> None:
        for line in report.repaired:
            print(line)
        if report.moved_aside is not None:
            print(f"moved      the old index to {report.moved_aside.path}")
        if not report.findings:
            print("sound      every derived row matches the notes")
        if pending:
            # the check asked the worker for them as it closed (`Service.doctor`)
            print(f"pending    {pending_vectors(pending, worker_running=True)}")

    emit(as_json, {**report.payload(), "chunks_pending_embedding": pending}, human)
    left = [] if fix and report.sound else report.findings
    # a finding that names what to run (a corrupt file: what every command says of it) keeps it
    advise = any("`k0maru " not in line for line in left) and not fix
    warn([*left, *([FIX] if advise else [])])
    return 1 if left else 0


def register(add: Adder) -> None:
    p = add(
        "doctor",
        lambda a: doctor(vault=a.vault, as_json=a.as_json, fix=a.fix),
        "check that the index holds what the notes give (every table, vector and the model)",
    )
    p.add_argument(
        "--fix", action="store_true", help="rebuild what is damaged from the notes, a line each"
    )
