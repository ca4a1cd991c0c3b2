"""The console's HTML pages, rendered from the same service results as the API."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import quote

from flask import Blueprint, Response, render_template, request
from markupsafe import Markup
from werkzeug.wsgi import wrap_file

from k0maru.console import graph_svg, mermaid_svg
from k0maru.console.params import (
    GREP_PAGE,
    MODES,
    PAGE_LINES,
    filters_arg,
    log_slice,
    number,
    search,
    search_args,
    service,
)
from k0maru.console.render import render_markdown, slug
from k0maru.errors import K0maruError
from k0maru.limits import LOADOUT_BUDGET, check_length
from k0maru.service.attachments import SERVED_TYPES, open_served
from k0maru.service.models import NoteLink, NoteView
from k0maru.text import tags_key

pages = Blueprint("pages", __name__)
SHOWN = SERVED_TYPES.keys()  # attachments a note page shows (or links) where embedded


@pages.get("/")
def home() -> Any:
    """The dashboard: what the index holds (the counts it keeps: no walk, no deep check), what is
    still embedding, the latest offloads."""
    svc = service()
    return render_template(
        "home.html",
        info=svc.status(check=False),
        counts=svc.index_counts(),
        logs=svc.log_list(5),
        tokens=svc.token_scoreboard(chart=False),
        page="home",
    )


@pages.get("/search")
def search_page() -> Any:
    defaults = service().search_defaults()
    args = {
        "q": request.args.get("q", ""),
        "mode": request.args.get("mode", "hybrid"),
        "boost": request.args.get("boost", defaults.graph_boost),
        "floor": request.args.get("floor", defaults.min_cosine),
    }
    data, error = None, None
    try:
        args = search_args()
        data = search(args) if args["q"] else None
    except K0maruError as exc:  # keep the form on the page, with the error above the results
        error = str(exc)
    status = 400 if error else 200
    return render_template(
        "search.html",
        data=data,
        error=error,
        modes=MODES,
        q=args["q"],
        mode=args["mode"],
        boost=args["boost"],
        floor=args["floor"],
        filters=request.args,
        page="search",
    ), status


@pages.get("/tokens")
def tokens_page() -> Any:
    data = service().token_scoreboard(number("price", None, 0, 1000, float))
    return render_template(
        "tokens.html", data=data, chart=Markup(graph_svg.savings_chart(data.points)), page="tokens"
    )


def when(epoch: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(epoch))


@pages.get("/logs")
def logs_page() -> Any:
    rows = [(r, when(r.created_at), r.duration_s) for r in service().log_list(10_000)]
    return render_template("logs.html", rows=rows, page="logs")


FAILURE_SCAN = 2000  # log lines read at a time while looking for the first failure's location


def failing_line(node: str, first: int, location: str | None) -> int:
    """The log line to open a failure at. pytest records a failure at its short-summary line; the
    failing line itself is the `>` line above the first `path:line: Error` line (in log order) that
    names the location."""
    if not location:
        return first
    where = location.split(" ", 1)[0] + ": "
    for start in range(1, first, FAILURE_SCAN):
        end = min(first, start + FAILURE_SCAN - 1)
        lines = service().log_view(node, lines=f"{start}:{end}", max_lines=FAILURE_SCAN).lines
        found = next((ln.n for ln in lines if ln.text.startswith(where)), None)
        if found is not None:
            return frame_line(node, found)
    return first


def frame_line(node: str, located: int) -> int:
    """The `>` line of the frame above a `path:line: Error` line (pytest's innermost frame), else
    that line itself."""
    above = service().log_view(node, lines=f"{max(1, located - 200)}:{located - 1}", max_lines=200)
    for line in reversed(list(above.lines)):
        if line.text.startswith(">"):
            return line.n
        if line.text.startswith("____"):
            break
    return located


@pages.get("/logs/<node>")
def log_page(node: str) -> Any:
    rec = service().log_view(node)
    first = (
        failing_line(node, rec.failure_lines[0], rec.first_location) if rec.failure_lines else None
    )
    around = [first] if first else []
    error = None
    try:
        view = log_slice(node, around)
    except K0maruError as exc:  # a bad grep: one line above the log, shown as without it
        error = str(exc)
        view = log_slice(node, around, grep=False)
    shown = [ln.n for ln in view.lines]
    return render_template(
        "log.html",
        rec=rec,
        svg=log_diagram(rec.mermaid or "", rec.node_id),
        slice=view,
        groups=consecutive_runs(view.lines),
        span=(shown[0], shown[-1]) if shown else None,
        page_lines=PAGE_LINES,
        grep_page=GREP_PAGE,
        skip=number("skip", 0, 0, 10**9) if request.args.get("grep") and not error else 0,
        failures=set(rec.failure_lines) | set(around),
        first_failure=first,
        args=request.args,
        error=error,
        page="logs",
    ), (400 if error else 200)


def log_diagram(mermaid: str, node_id: str) -> Markup:
    """The log's Mermaid diagram as SVG, or one line saying why it cannot be drawn."""
    try:
        return Markup(mermaid_svg.render(mermaid, f"log {node_id}"))
    except mermaid_svg.MermaidError as exc:
        return Markup("<p class='warn'>diagram not renderable: {}</p>").format(str(exc))


def consecutive_runs(lines: Sequence[Any]) -> list[list[Any]]:
    """grep: runs of consecutive lines, shown with `--` between them."""
    groups: list[list[Any]] = []
    for ln in lines:
        if groups and ln.n == groups[-1][-1].n + 1:
            groups[-1].append(ln)
        else:
            groups.append([ln])
    return groups


NOTES_PER_PAGE = 200


def folders(paths: list[str], under: str) -> list[tuple[str, int]]:
    """The folders one level below `under` (a vault path prefix), with how many notes each holds."""
    prefix = under.rstrip("/") + "/" if under.strip("/") else ""
    counts: Counter[str] = Counter()
    for p in paths:
        if p.startswith(prefix) and "/" in p[len(prefix) :]:
            counts[prefix + p[len(prefix) :].split("/", 1)[0] + "/"] += 1
    return sorted(counts.items())


@pages.get("/notes")
def notes_page() -> Any:
    docs = service().notes(request.args.get("filter", "")[:300], filters_arg()).notes
    pages_total = max(1, -(-len(docs) // NOTES_PER_PAGE))
    page_no = min(number("page", 1, 1, 1_000_000), pages_total)
    start = (page_no - 1) * NOTES_PER_PAGE
    under = (request.args.get("path") or "").strip()[:300]
    keep = {k: v for k, v in request.args.items() if k != "page" and v}
    return render_template(
        "notes.html",
        docs=docs[start : start + NOTES_PER_PAGE],
        total=len(docs),
        start=start,
        page_no=page_no,
        pages_total=pages_total,
        tree=folders([n.path for n in docs], under),
        under=under,
        keep=keep,
        args=request.args,
        page="notes",
    )


GRAPH_MAX = 12  # more neighbours than this cannot be labelled legibly on a circle: lists only


@pages.get("/files/<path:path>")
def vault_file(path: str) -> Any:
    """An attachment a note embeds (an image, audio, a video, a PDF) as the vault holds it, in
    ranges where the browser asks (a player seeking); `open_served` says which files qualify."""
    file, media, size = open_served(service().root, path)
    try:
        resp = Response(wrap_file(request.environ, file), mimetype=media, direct_passthrough=True)
        resp.content_length = size
        return resp.make_conditional(request.environ, accept_ranges=True, complete_length=size)
    except BaseException:
        file.close()
        raise


@pages.get("/notes/<path:path>")
def note_page(path: str) -> Any:
    note = service().note_view(path)
    links = distinct_links(note.links)
    backlinks = list({b.path: b for b in note.backlinks}.values())
    neighbours = {x.path for x in links if x.path} | {b.path for b in backlinks}
    front = note.frontmatter or {}
    shown_apart = {"title", tags_key(front)}  # in the header already
    return render_template(
        "note.html",
        note=note,
        links=links,
        backlinks=backlinks,
        neighbours=len(neighbours),
        served={
            x.attachment for x in links if x.attachment and suffix(x.attachment) in SERVED_TYPES
        },
        tags=note.tags,  # as the index holds them: the tag filter finds the note by each
        properties={k: shown_value(v) for k, v in front.items() if k not in shown_apart},
        body=Markup(note_html(note)),
        graph=Markup(note_graph(note.title, links, backlinks) if len(neighbours) else ""),
        page="notes",
    )


def note_html(note: NoteView) -> str:
    """The note's body as HTML, its links resolved as the index resolves them and its embedded
    images served from the vault."""
    links_to = service().link_paths()
    images = {
        x.target: x.attachment
        for x in note.links
        if x.target and x.attachment and suffix(x.attachment) in SHOWN
    }
    return render_markdown(
        note.body, links_to.path_of, note.path, links_to.path_of_href, note.title, images
    )


def suffix(path: str) -> str:
    return PurePosixPath(path).suffix.lower()


def distinct_links(links: Sequence[NoteLink]) -> list[NoteLink]:
    """Each link once: a note that links to another twice lists it once."""
    kept: list[NoteLink] = []
    seen: set[str] = set()
    for x in links:
        key = x.path or (x.target or "").lower()
        if key not in seen:
            seen.add(key)
            kept.append(x)
    return kept


def note_graph(title: str, links: list[NoteLink], backlinks: list[NoteLink]) -> str:
    """The note with its neighbours on a circle, or nothing where they are too many to label."""
    outgoing = [(x.path, link_label(x)) for x in links if x.path]
    incoming = [(b.path or "", link_label(b)) for b in backlinks]
    if len({p for p, _ in outgoing} | {p for p, _ in incoming}) > GRAPH_MAX:
        return ""
    return graph_svg.neighbourhood(title, outgoing, incoming, lambda p: "/notes/" + quote(p))


def link_label(link: NoteLink) -> str:
    return link.title or link.target or ""


def shown_value(value: Any) -> str:
    """A property as the note wrote it: YAML's true/false and null, lists joined with commas."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return ", ".join(shown_value(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {shown_value(v)}" for k, v in value.items())
    return str(value)


@pages.get("/status")
def status_page() -> Any:
    svc = service()
    return render_template(
        "status.html",
        info=svc.status(),
        counts=svc.index_counts(),
        freshness=svc.freshness(),
        page="status",
    )


LOADOUT_MAX_BUDGET, FOCUS_CHARS = 32_000, 500  # as the MCP tool bounds them


@pages.get("/loadout")
def loadout_page() -> Any:
    """The loadout an agent gets first (the MCP tool, `k0maru loadout`): the project's agent files,
    guides, commands and decisions in force within `?budget=` tokens, what concerns `?focus=`
    first."""
    focus = check_length("focus", (request.args.get("focus") or "").strip(), FOCUS_CHARS)
    budget = number("budget", LOADOUT_BUDGET, 200, LOADOUT_MAX_BUDGET)
    answer = service().loadout(budget, focus=focus or None)
    notes = set(service().link_paths().paths.values())
    return render_template(
        "loadout.html",
        answer=answer,
        sections=[(s, source_href(s.source, notes)) for s in answer.sections],
        focus=focus,
        budget=budget,
        page="loadout",
    )


def source_href(source: str, notes: set[str]) -> str | None:
    """Where a loadout section's source (`path` or `path#Heading`) opens, when it is a note."""
    path, _, heading = source.partition("#")
    return (
        f"/notes/{quote(path)}{'#' + slug(heading) if heading else ''}" if path in notes else None
    )


@pages.get("/conventions")
def conventions_page() -> Any:
    """Where each kind of note goes and why, and the record form learnt from the folder's own
    records."""
    conv = service().conventions()
    kinds = [
        (kind, rule, [line.partition(": ")[::2] for line in rule.explained])
        for kind, rule in conv.kinds.items()
    ]
    return render_template("conventions.html", conv=conv, kinds=kinds, page="conventions")


@pages.get("/gaps")
def gaps_page() -> Any:
    """What the index leaves out: skipped files with why, links that lead to no note, links to
    attachments that are not there, links to a heading their note lacks."""
    gaps = service().index_gaps()
    return render_template(
        "gaps.html",
        gaps=gaps,
        to_notes=[d for d in gaps.dangling if not d.attachment],
        to_files=[d for d in gaps.dangling if d.attachment],
        to_headings=gaps.headings,
        page="status",
    )


@pages.get("/tags")
def tags_page() -> Any:
    """Every tag with how many notes it has, each linking to the list of those notes."""
    return render_template(
        "named_counts.html",
        title="Tags",
        noun="tag",
        param="tag",
        prefix="#",
        rows=service().index_counts(fresh=True).tags,
        about="a tag counts the notes of the tags nested under it (#a counts #a/b's)",
        empty="no note has a tag",
        page="tags",
    )


@pages.get("/kinds")
def kinds_page() -> Any:
    """Every kind of note (frontmatter `kind`/`type`, else the folder the vault's rules name for
    it, else its folder's name) with how many notes are of it."""
    return render_template(
        "named_counts.html",
        title="Kinds of note",
        noun="kind",
        param="kind",
        prefix="",
        rows=service().index_counts(fresh=True).kinds,
        about="what `search --kind` and the note list's kind filter select",
        empty="no note has a kind: none says one in its frontmatter or lies in a kind's folder",
        page="kinds",
    )
