"""The console's HTML pages, rendered from the same service results as the API."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from flask import Blueprint, redirect, render_template, request, url_for
from markupsafe import Markup

from k0maru.console import graph_svg, mermaid_svg
from k0maru.console.params import (
    MODES,
    filters_arg,
    log_slice,
    number,
    search,
    search_args,
    service,
)
from k0maru.console.render import render_markdown
from k0maru.errors import K0maruError

pages = Blueprint("pages", __name__)


@pages.get("/")
def home() -> Any:
    return redirect(url_for("pages.search_page"))


@pages.get("/search")
def search_page() -> Any:
    args = {
        "q": request.args.get("q", ""),
        "mode": request.args.get("mode", "hybrid"),
        "boost": request.args.get("boost", service().vault.settings.graph_boost),
        "floor": request.args.get("floor", service().vault.settings.min_cosine),
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


@pages.get("/logs")
def logs_page() -> Any:
    return render_template("logs.html", logs=service().log_list(10_000), page="logs")


@pages.get("/logs/<node>")
def log_page(node: str) -> Any:
    rec = service().log_view(node)
    try:
        svg = Markup(mermaid_svg.render(rec.mermaid or "", f"log {rec.node_id}"))
    except mermaid_svg.MermaidError as exc:
        svg = Markup("<p class='warn'>diagram not renderable: {}</p>").format(str(exc))
    return render_template(
        "log.html",
        rec=rec,
        svg=svg,
        slice=log_slice(node, rec.failure_lines),
        failures=set(rec.failure_lines),
        first_failure=rec.failure_lines[0] if rec.failure_lines else None,
        args=request.args,
        page="logs",
    )


@pages.get("/notes")
def notes_page() -> Any:
    docs = service().notes(request.args.get("filter", "")[:300], filters_arg())
    return render_template("notes.html", docs=docs, args=request.args, page="notes")


@pages.get("/notes/<path:path>")
def note_page(path: str) -> Any:
    note = service().note_view(path)
    html = render_markdown(note.body, service().link_paths(), note.path)
    graph = graph_svg.neighbourhood(
        note.title,
        [(x.path, x.title or x.target or "") for x in note.links if x.path],
        [(b.path or "", b.title or "") for b in note.backlinks],
        lambda p: "/notes/" + quote(p),
    )
    return render_template(
        "note.html", note=note, body=Markup(html), graph=Markup(graph), page="notes"
    )


@pages.get("/status")
def status_page() -> Any:
    return render_template("status.html", info=service().status(), page="status")
