"""`k0maru search`: hybrid recall, with every number on --explain."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from k0maru.cli.output import Adder, emit, index_exists, positive_int, service, warn
from k0maru.errors import K0maruError

TYPE_CHECKING = False  # as typing's (mypy reads it so), without importing typing at start-up
if TYPE_CHECKING:
    from typing import Any

    from k0maru.service.models import Filters, RecallResult


def search(  # noqa: PLR0913 - a CLI handler takes one parameter per flag
    vault: str | None,
    as_json: bool,
    query: list[str],
    limit: int,
    mode: str,
    explain: bool,
    no_scan: bool,
    path: str | None,
    tag: str | None,
    kind: str | None,
    since: str | None,
    until: str | None,
    budget: int | None,
    lang: str | None = None,
    min_score: float | None = None,
) -> int:
    filters = _filters(path, tag, kind, since, until, lang)
    if no_scan and not index_exists(vault):
        raise K0maruError(
            "no index yet, and --no-scan skips building it; run `k0maru scan` first "
            "(or search without --no-scan)"
        )
    with service(vault, as_json, rescan=not no_scan) as svc:
        result = svc.recall(
            " ".join(query),
            limit=limit,
            mode=mode,
            explain=explain,
            filters=filters,
            token_budget=budget,
            min_score=min_score,
        )
        notes = svc.status().documents if not result.hits else None
    said = svc.warnings  # shown as the service closed
    empty = (
        [
            "no notes are indexed in this vault: k0maru reads **/*.md (set `include` in "
            ".k0maru/config.toml for other files)"
        ]
        if notes == 0
        else []
    )
    warn([*unsaid(result.warnings, said), *empty])
    emit(as_json, result.payload(), lambda: _print_cut(result, explain))
    return 0


def _print_cut(result: RecallResult, explain: bool) -> None:
    """The hits, then one line saying what --budget cut and how to see it."""
    _print(result, explain)
    if result.left_out or result.passages_cut:
        print(budget_line(result))


def budget_line(result: RecallResult) -> str:
    """What was cut to fit --budget (hits left out, passages shortened) and how to see it."""
    cut = [f"{result.left_out} lower hit(s) left out"] if result.left_out else []
    if result.passages_cut:
        cut.append(f"{result.passages_cut} passage(s) shortened (ending …)")
    whole = f"--budget {result.whole_tokens}" if result.whole_tokens else "a larger --budget"
    return f"cut to fit --budget: {' and '.join(cut)}; {whole} shows them all, whole"


def _filters(*flags: str | None) -> Filters | None:
    """The filters of the flags (path, tag, kind, since, until, lang), checked before anything is
    opened or indexed; None without any (a plain search imports no service model)."""
    if not any(flags):
        return None
    from pathlib import PurePosixPath

    from k0maru.service.models import Filters

    filters = Filters(*flags)
    path = filters.path
    if path and (path.startswith(("/", "\\")) or ".." in PurePosixPath(path).parts):
        raise K0maruError(
            f"--path {path[:80]!r} is not a folder inside the vault; give a vault path such as docs/adr/"
        )
    filters.window()  # a bad date or language is refused
    filters.language()
    return filters


def unsaid(lines: Sequence[str], said: Sequence[str]) -> list[str]:
    """`lines` less those whose reason (what follows the first ": ") a line already shown gave: a
    read-only index's "index not refreshed: WHY" is not said again as "the index is behind the
    files: WHY"."""
    reasons = {line.partition(": ")[2] for line in said} - {""}
    return [line for line in lines if line.partition(": ")[2] not in reasons]


def score(text: str) -> float:
    """An argparse type: a score of at least 0 (a hit's `score`, on the mode's scale)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text[:40]!r}") from None
    if not value >= 0:  # NaN too
        raise argparse.ArgumentTypeError(f"must be at least 0, not {text[:40]}")
    return value


def _print(result: RecallResult, explain: bool) -> None:
    import shutil

    from k0maru.text import visible

    width = max(40, shutil.get_terminal_size().columns)  # $COLUMNS, the terminal, else 80

    def say(text: str, indent: str = "") -> None:
        """Lines wrapped to the terminal's width, continued under `indent`."""
        for line in visible(text, keep="\n").splitlines() or [""]:
            print(fit(line, width, indent))

    if not result.hits and not result.warnings:  # else the warning is the one line that says so
        print("no results")
    elif explain and result.bm25_weight is not None:
        say(formula(result, result.bm25_weight), "        ")
    for i, hit in enumerate(result.hits, start=1):
        # one line each: a newline in a name is shown escaped, as `show` takes it back
        where = visible(f"{hit.path}:{hit.lines.split('-')[0]}" if hit.lines else hit.path)
        heading = f" > {visible(hit.heading)}" if hit.heading else ""
        say(f"{i:>2}. {visible(hit.title)}{heading}  [{where}]  score={hit.score:.5f}", "    ")
        if explain:
            say(explained(hit), "      ")
        say(f"    {hit.snippet}".replace("\n", "\n    "), "    ")
        if hit.also_at:
            say(f"    also at: {', '.join(hit.also_at)}", "    ")
        if hit.also_in:
            say(f"    also in: {', '.join(hit.also_in)}", "    ")
        if hit.superseded_by is not None:
            say(f"    superseded{f' by {hit.superseded_by}' if hit.superseded_by else ''}", "    ")


def formula(result: RecallResult, w: float) -> str:
    """The score's formula for this query (`w`: BM25's share), and on a line of its own the cosine
    floor below which a vector hit adds nothing (the `min_cosine` setting; hybrid only)."""
    text = f"score = {w:.2f} x bm25/best + {1 - w:.2f} x cosine above the floor + graph"
    if result.cosine_floor is not None:
        text += (
            f"\nfloor = cosine {result.cosine_floor:g} (min_cosine): a vector hit below it adds "
            "nothing"
        )
    return text


def explained(hit: Any) -> str:
    bm = f"#{hit.bm25_rank} ({hit.bm25_score:.3f})" if hit.bm25_rank else "-"
    vc = (
        f"#{hit.vector_rank} (cos {hit.cosine:.3f})"
        if hit.vector_rank
        else (f"- (cos {hit.cosine:.3f}, no vote)" if hit.cosine is not None else "-")
    )
    if hit.vector_part_of:
        vc += f" (no vector yet: the part of [[{hit.vector_part_of}]], nearest in BM25)"
    links = hit.boost_links
    shown = "; ".join(links[:2]) + (f"; +{len(links) - 2} more" if len(links) > 2 else "")
    return (
        f"    bm25 {bm} -> {hit.bm25_part or 0:.3f}   vector {vc} -> {hit.vector_part or 0:.3f}"
        f"   graph +{hit.graph_boost or 0:.3f}" + (f" ({shown})" if links else "")
    )


def fit(line: str, width: int, indent: str) -> str:
    """`line` wrapped at `width` columns (at spaces where it can), later lines under `indent`."""
    import textwrap

    if len(line) <= width:
        return line
    lead = line[: len(line) - len(line.lstrip(" "))]
    return textwrap.fill(
        line.strip(),
        width,
        initial_indent=lead,
        subsequent_indent=indent,
        break_on_hyphens=False,
    )


def register(add: Adder) -> None:
    p = add(
        "search",
        lambda a: search(
            vault=a.vault,
            as_json=a.as_json,
            query=a.query,
            limit=a.limit,
            mode=a.mode,
            explain=a.explain,
            no_scan=a.no_scan,
            path=a.path,
            tag=a.tag,
            kind=a.kind,
            since=a.since,
            until=a.until,
            budget=a.budget,
            lang=a.lang,
            min_score=a.min_score,
        ),
        "hybrid search (BM25 + vectors + graph boost) over the vault",
    )
    p.add_argument(
        "query", nargs="+", help="words to look for (quote nothing: all words are one query)"
    )
    p.add_argument("--limit", type=positive_int, default=10, metavar="N", help="notes to show")
    p.add_argument(
        "--mode",
        choices=["bm25", "vector", "hybrid"],
        default="hybrid",
        help="channels to rank with",
    )
    p.add_argument(
        "--explain",
        action="store_true",
        help="show the formula, ranks, scores, each channel's part and graph boosts",
    )
    p.add_argument(
        "--no-scan", action="store_true", help="skip the incremental scan before searching"
    )
    p.add_argument(
        "--path", metavar="PREFIX", help="only notes under this vault path, e.g. docs/adr/"
    )
    p.add_argument(
        "--tag", help="only notes with this tag (frontmatter or inline #tag; nested a/b included)"
    )
    p.add_argument("--kind", help="only notes of this kind (adr, decision, card, log, skill, ...)")
    p.add_argument(
        "--since", metavar="WHEN", help="only notes dated on or after: YYYY-MM-DD or 30d, 2w, 6m"
    )
    p.add_argument(
        "--budget",
        type=positive_int,
        metavar="TOKENS",
        help="cut the answer to fit this many LLM tokens",
    )
    p.add_argument(
        "--until",
        metavar="WHEN",
        help="only notes dated on or before (frontmatter date, else the file name's, else mtime)",
    )
    p.add_argument(
        "--lang",
        metavar="CODE",
        help="only notes in this language (ISO code: its stemmer's notes, its folder es/, or x.es.md)",
    )
    p.add_argument(
        "--min-score",
        type=score,
        metavar="S",
        help="leave out hits scoring below S (scores run 0 to 1: hybrid is the weighted sum, plus "
        "any graph boost, bm25 relative to the best hit, vector (cosine + 1) / 2)",
    )
