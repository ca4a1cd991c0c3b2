"""`k0maru init`, `scan`, `status`."""

from __future__ import annotations

import argparse
import os
import sys

from k0maru.cli.output import Adder, emit, pending_vectors, say_vault, service, took, warn
from k0maru.errors import K0maruError

TYPE_CHECKING = False  # as typing's (mypy reads it so), without importing typing at start-up
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from k0maru.service.models import IndexCounts, ScanReport, VaultStatus


def init(vault: str | None, as_json: bool) -> int:
    with service(vault, as_json, rescan=False, create=True) as svc:
        done = svc.init()
    emit(
        as_json,
        done.payload(),
        lambda: print(
            "\n".join(f"k0maru: {d}" for d in done.done) + f"\nk0maru: vault {done.vault} ready"
        ),
    )
    return 0


def scan(
    vault: str | None,
    as_json: bool,
    full: bool,
    rebuild: bool,
    include: list[str] | None,
    max_file_bytes: int | None,
    embed: bool | None,
) -> int:
    from k0maru.service.operations import unchanged_scan

    if max_file_bytes is not None and max_file_bytes < 1:
        raise K0maruError(f"--max-file-bytes must be at least 1, not {max_file_bytes}")
    flags: dict[str, Any] = {"include": include, "max_file_bytes": max_file_bytes, "embed": embed}
    walked = None if full or rebuild else unchanged_scan(vault, **flags)
    if walked is not None:  # nothing to do, found from a walk and a look at the index files
        say_vault(walked[0], as_json)
        print_counts(walked[1], as_json)
        return 0
    with service(vault, as_json, rescan=False, **flags) as svc:
        data = svc.scan(full=full, rebuild=rebuild)
        root = svc.root
    if data.moved_aside:
        moved = data.moved_aside
        print(f"k0maru: moved the old index to {moved.path} ({moved.why})", file=sys.stderr)
    warn(data.warnings)
    if data.pending_embedding:
        embed_after_scan(root, data, as_json, flags)
    print_scan(data, as_json)
    return 0


def quick_scan(words: list[str]) -> int | None:
    """`scan` with no flags but `--vault DIR`, `--json` and `--no-embed`, answered when it has
    nothing to do (`unchanged_scan`) without building the parser; None for any other words, any
    doubt, or a scan with work: the parser then takes the command (and reports what is wrong)."""
    from k0maru.service.operations import unchanged_scan

    given = _simple_scan_flags(words)
    if given is None:
        return None
    try:
        walked = unchanged_scan(given["--vault"], embed=False if given["--no-embed"] else None)
    except K0maruError:  # the full scan says it, with its own line
        return None
    if walked is None:
        return None
    say_vault(walked[0], given["--json"])
    print_counts(walked[1], given["--json"])
    return 0


def _simple_scan_flags(words: list[str]) -> dict[str, Any] | None:
    """`--vault`'s value and whether `--json` and `--no-embed` are given, when `words` are those
    flags only (`--vault DIR` or `--vault=DIR`); None for any other word."""
    given: dict[str, Any] = {"--vault": None, "--json": False, "--no-embed": False}
    rest = list(words)
    while rest:
        word = rest.pop(0)
        flag, eq, value = word.partition("=")
        if flag == "--vault" and (eq or (rest and not rest[0].startswith("-"))):
            given[flag] = value if eq else rest.pop(0)
        elif word in ("--json", "--no-embed"):
            given[word] = True
        else:
            return None
    return given


def embed_after_scan(root: Path, data: ScanReport, as_json: bool, flags: dict[str, Any]) -> None:
    """Hand the embedding to the vault's one worker: this process becomes it (exec), so the vectors
    are computed with a fresh heap, not beside what the scan and the BM25 build left, and never
    twice at once. When a background worker already runs, it does them."""
    import json

    from k0maru.service import worker as background

    if background.running(root):
        warn(
            [
                f"{data.pending_embedding} chunk(s) wait for vectors: the background worker is embedding them "
                "(`k0maru status` shows how many are left)"
            ]
        )
        return
    sys.stdout.flush()
    sys.stderr.flush()
    report = json.dumps(
        {
            **data.counts(),
            "flags": {k: v for k, v in flags.items() if v is not None},
            "as_json": as_json,
        }
    )
    os.execv(
        sys.executable,
        [sys.executable, "-m", "k0maru", "worker", "--vault", str(root), "--after-scan", report],
    )


def print_scan(data: ScanReport, as_json: bool) -> None:
    print_counts(data.payload(), as_json)


def print_counts(report: dict[str, Any], as_json: bool) -> None:
    """A scan's report as `ScanReport.payload()` shapes it."""
    emit(
        as_json,
        report,
        lambda: print(
            f"added {report['added']}  modified {report['modified']}  "
            f"unchanged {report['unchanged']}  removed {report['removed']}  "
            f"skipped {report['skipped']}  embedded {report['embedded']}  "
            + (f"symlinks {report['symlinks']}  " if report["symlinks"] else "")
            + f"in {took(report['elapsed_ms'] / 1000)}"
        ),
    )


def status(vault: str | None, as_json: bool) -> int:
    """The index's state, with the counts the console's dashboard and status page show (each equal
    to the rows the page it links to lists) and how the index is kept current."""
    with service(vault, as_json, rescan=False) as svc:
        info = svc.status()
        counts = svc.index_counts()
        current = svc.freshness()
    payload = {
        **info.payload(),
        "links_to_no_note": counts.links_to_no_note,
        "attachment_links": counts.attachment_links,
        "tags": len(counts.tags),
        "kinds": len(counts.kinds),
        "kept_current": current,
    }
    emit(as_json, payload, lambda: print_status(info, counts, current))
    warn(info.problems)
    return 1 if info.problems else 0


def print_status(info: VaultStatus, counts: IndexCounts, current: str) -> None:
    import time

    last = info.last_scan
    when = (
        time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(last["started_at"])) if last else "never"
    )
    print(f"vault      {info.vault}")
    print(
        f"index      {info.index} ({info.db_size_bytes / 1e6:.2f} MB, schema v{info.schema_version})"
    )
    if info.old_copies:
        print(
            f"old copies {info.old_copies} kept by rebuilds "
            f"({info.old_copies_bytes / 1e6:.2f} MB, the newest 2 are kept)"
        )
    print(f"sqlite     {info.sqlite}")
    print(f"model      {info.model or 'none: ' + str(info.model_warning)}")
    print(
        f"documents  {info.documents:,}   chunks {info.chunks:,} ({info.chunks_embedded:,} embedded)"
    )
    if info.chunks_pending_embedding:
        print(f"embedding  {pending_vectors(info.chunks_pending_embedding, info.worker_running)}")
    elif info.model is not None and info.chunks:
        print(f"embedding  all {info.chunks_embedded:,} chunks embedded")
    print(
        f"links      {info.links:,}: {info.links_resolved:,} to notes, "
        f"{counts.attachment_links:,} to other files (images, PDFs), "
        f"{counts.links_to_no_note:,} to no note (the console's /gaps lists them)"
    )
    print(
        f"tags       {len(counts.tags):,}   kinds {len(counts.kinds):,}   offloads {info.offloads:,}"
    )
    if info.bm25_main_chunks is None:
        print("bm25       not built yet (the first search or scan builds it)")
    else:
        print(
            f"bm25       {info.bm25_main_chunks:,} chunks persisted, {info.bm25_delta_chunks:,} "
            "changed since (scored per query; merged by scan or the worker past 10%)"
        )
    # the scan's own time: the vectors that follow it (the `embedding` line) are not in it
    scanned = (
        f" ({took(last['elapsed_ms'] / 1000)} indexing, without the embedding after it; "
        f"+{last['added']} ~{last['modified']} -{last['removed']})"
        if last
        else ""
    )
    print(f"last scan  {when}{scanned}")
    print(f"current    {current}")


def worker(vault: str | None, after_scan: str | None) -> int:
    """The background worker; with `after_scan` (the scan's counts), the embedding half of a `k0maru
    scan` that handed over to it: a progress bar, then the scan's report with what was embedded."""
    import json

    from k0maru.layout import resolve_vault
    from k0maru.progress import LazyProgress
    from k0maru.service import worker as background

    root = resolve_vault(vault)
    if after_scan is None:
        done = background.run(root)
        if done:
            print(done)
        return 0
    from k0maru.service.models import SCAN_COUNTS, ScanReport

    handed = json.loads(after_scan)
    as_json = bool(handed.get("as_json", False))
    data = ScanReport(**{k: handed[k] for k in SCAN_COUNTS})
    with LazyProgress("embedding", not as_json) as progress:
        done = background.run(root, progress, **handed.get("flags", {}))
    if done is None:
        warn(
            [
                "another k0maru worker took over the embedding (`k0maru status` shows how many chunks are left)"
            ]
        )
    else:
        data = data.but(
            **{
                k: getattr(data, k) + getattr(done, k)
                for k in ("added", "modified", "removed", "embedded")
            },
            elapsed_ms=round(data.elapsed_ms + done.elapsed_ms, 2),
        )
    print_scan(data, as_json)
    return 0


def register(add: Adder) -> None:
    add(
        "init",
        lambda a: init(vault=a.vault, as_json=a.as_json),
        "create .k0maru/ (config, index) and ignore it in git",
    )
    p = add(
        "scan",
        lambda a: scan(
            vault=a.vault,
            as_json=a.as_json,
            full=a.full,
            rebuild=a.rebuild,
            include=a.include,
            max_file_bytes=a.max_file_bytes,
            embed=a.embed,
        ),
        "index new and changed notes incrementally, then embed new chunks",
    )
    p.add_argument("--full", action="store_true", help="re-read and re-parse every file")
    p.add_argument(
        "--rebuild", action="store_true", help="move a corrupt index aside and rebuild it"
    )
    p.add_argument(
        "--include", action="append", metavar="GLOB", help="files to index (default **/*.md)"
    )
    p.add_argument("--max-file-bytes", type=int, metavar="N", help="skip files larger than N bytes")
    p.add_argument(
        "--no-embed", dest="embed", action="store_const", const=False, help="skip embeddings"
    )
    add(
        "status",
        lambda a: status(vault=a.vault, as_json=a.as_json),
        "index counts, database size, model and last scan",
    )
    p = add(
        "worker",
        lambda a: worker(vault=a.vault, after_scan=a.after_scan),
        "the background indexer the git hooks start (one per vault; exits when caught up)",
        json=False,
    )
    # `scan` hands its embedding over
    p.add_argument("--after-scan", metavar="JSON", help=argparse.SUPPRESS)
