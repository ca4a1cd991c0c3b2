"""What every command shares: the common flags, the service it works on, JSON or human output."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

Adder = Callable[..., argparse.ArgumentParser]


def common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--vault", metavar="DIR", help="vault root (default: enclosing git repo, else cwd)"
    )
    p.add_argument("--json", dest="as_json", action="store_true", help="machine-readable output")


def emit(as_json: bool, payload: Any, human: Callable[[], None]) -> None:
    if as_json:
        print(json.dumps(payload, ensure_ascii=False, separators=(",", ":"), default=str))
    else:
        human()


def warn(lines: Sequence[str]) -> None:
    for line in lines:
        print(f"k0maru: warning: {line}", file=sys.stderr)


@contextmanager
def service(
    vault: str | None, as_json: bool = False, rescan: bool = True, **settings: Any
) -> Iterator[Any]:
    """A one-shot service: rescans in the foreground (progress bars on a terminal), embeds before answering."""
    from k0maru.progress import LazyProgress
    from k0maru.service.operations import Service

    with LazyProgress("scanning", not as_json) as sp, LazyProgress("embedding", not as_json) as ep:
        svc = Service.open(
            vault,
            settings=settings,
            one_shot=True,
            rescan_interval=0,
            embed="worker",
            rescan=rescan,
            scan_progress=sp,
            embed_progress=ep,
        )
        try:
            yield svc
        finally:
            svc.close()
    warn(svc.live.warnings)
