"""Query-string parameters of the console, bounded, with one-line errors."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from flask import current_app, request

from k0maru.errors import K0maruError
from k0maru.limits import MAX_QUERY_CHARS, check_length
from k0maru.service.models import Filters
from k0maru.service.operations import Service

MODES = ("hybrid", "bm25", "vector")
FILTERS = ("path", "tag", "kind", "since", "until", "lang")


def service() -> Service:
    svc: Service = current_app.extensions["k0maru"]
    return svc


def number(name: str, default: Any, lo: float, hi: float, kind: type = int) -> Any:
    """A bounded numeric query parameter, or a 400 that says what is wrong."""
    raw = request.args.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = kind(raw)
    except ValueError:
        raise K0maruError(f"{name} must be {'an integer' if kind is int else 'a number'}") from None
    if not lo <= value <= hi:
        raise K0maruError(f"{name} must be between {lo:g} and {hi:g}")
    return value


def filters_arg() -> Filters:
    """?path=, ?tag=, ?kind=, ?since=, ?until=, ?lang= (each cut to 300 characters)."""
    return Filters(*(((request.args.get(k) or "").strip()[:300] or None) for k in FILTERS))


def search_args() -> dict[str, Any]:
    """The search form's parameters (query, mode, limit, graph boost, cosine floor)."""
    defaults = service().search_defaults()
    mode = request.args.get("mode") or "hybrid"
    if mode not in MODES:
        raise K0maruError(f"mode must be one of {', '.join(MODES)}")
    q = (request.args.get("q") or "").strip()
    check_length("query", q, MAX_QUERY_CHARS)
    return {
        "q": q,
        "mode": mode,
        "limit": number("limit", 10, 1, 50),
        "filters": filters_arg(),
        "boost": number("boost", defaults.graph_boost, 0, 1, float),
        "floor": number("floor", defaults.min_cosine, -1, 1, float),
    }


def search(args: dict[str, Any]) -> dict[str, Any]:
    """The search result with every channel's numbers (the console is a debugger), plus its
    settings."""
    if not args["q"]:
        raise K0maruError("missing query: pass ?q=words")
    result = service().recall(
        args["q"],
        args["limit"],
        args["mode"],
        explain=True,
        graph_boost=args["boost"],
        min_cosine=args["floor"],
        filters=args["filters"],
    )
    return {
        **result.payload(),
        "hits": result.hits,
        "limit": args["limit"],
        "graph_boost": args["boost"],
        "filters": {
            k: v
            for k, v in zip(
                FILTERS,
                (
                    args["filters"].path,
                    args["filters"].tag,
                    args["filters"].kind,
                    args["filters"].since,
                    args["filters"].until,
                    args["filters"].lang,
                ),
                strict=True,
            )
            if v
        },
        "min_cosine": args["floor"],
    }


PAGE_LINES = 60
GREP_PAGE = 120  # matches on one page of a grep


def log_slice(node: str, failure_lines: Sequence[int] | None = None, grep: bool = True) -> Any:
    """The lines of a log page or API call: ?grep=PATTERN (with ?context=N) or ?lines=A:B; by
    default the page around the first failure (the top of the log when none was recognised)."""
    if grep and request.args.get("grep"):
        return service().log_view(
            node,
            pattern=request.args["grep"],
            context=number("context", 3, 0, 50),
            fixed=bool(request.args.get("fixed")),
            max_matches=GREP_PAGE,
            skip=number("skip", 0, 0, 10**9),
            max_lines=400,
        )
    start = max(1, failure_lines[0] - 20) if failure_lines else 1  # the test or frame header above
    return service().log_view(
        node, lines=request.args.get("lines") or f"{start}:{start + PAGE_LINES - 1}"
    )
