"""Flask app: pages and a JSON API over one vault's index. All access to the shared SQLite
connection goes through one lock; every path from a request is confined to the vault."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

from flask import Flask, jsonify, redirect, render_template, request, url_for
from markupsafe import Markup

from k0maru.console import graph_svg, mermaid_svg
from k0maru.console.render import render_markdown
from k0maru.errors import K0maruError, NotFoundError, PathOutsideVaultError
from k0maru.fsutil import resolve_inside
from k0maru.resources import resource_path
from k0maru.service.session import LiveVault
from k0maru.service.vault import Vault

MODES = ("hybrid", "bm25", "vector")


class ApiError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def create_app(vault: Vault) -> Flask:
    base = resource_path("web")
    app = Flask("k0maru.console", template_folder=str(base / "templates"), static_folder=str(base / "static"))
    app.config["JSON_SORT_KEYS"] = False
    live = LiveVault(vault)
    app.config["K0MARU_LIVE"] = live  # the server closes it, then the vault under its lock
    lock, fresh = live.lock, live.fresh

    def num_arg(name: str, default: Any, lo: float, hi: float, kind: type = int) -> Any:
        """A bounded numeric query parameter, or a 400 that says what is wrong."""
        raw = request.args.get(name)
        if raw is None or raw == "":
            return default
        try:
            value = kind(raw)
        except ValueError:
            raise ApiError(400, f"{name} must be {'an integer' if kind is int else 'a number'}") from None
        if not lo <= value <= hi:
            raise ApiError(400, f"{name} must be between {lo:g} and {hi:g}")
        return value

    @app.errorhandler(ApiError)
    def api_error(err: ApiError):
        if request.path.startswith("/api/"):
            return jsonify({"error": err.message}), err.status
        return render_template("error.html", status=err.status, message=err.message), err.status

    @app.errorhandler(404)
    def not_found(_err):
        if request.path.startswith("/api/"):
            return jsonify({"error": "not found"}), 404
        return render_template("error.html", status=404, message="not found"), 404

    def note_href(path: str) -> str:
        return "/notes/" + quote(path)

    app.jinja_env.globals["note_href"] = note_href

    # ---- data --------------------------------------------------------------------------------------
    def search_data() -> dict[str, Any]:
        q = (request.args.get("q") or "").strip()
        mode = request.args.get("mode") or "hybrid"
        if mode not in MODES:
            raise ApiError(400, f"mode must be one of {', '.join(MODES)}")
        limit = num_arg("limit", 10, 1, 50)
        boost = num_arg("boost", vault.settings.graph_boost, 0, 1, float)
        floor = num_arg("floor", vault.settings.min_cosine, -1, 1, float)
        if not q:
            raise ApiError(400, "missing query: pass ?q=words")
        with lock:
            fresh()
            try:
                result = vault.recall.search(q, limit=limit, mode=mode, graph_boost=boost, min_cosine=floor)
            except K0maruError as exc:
                raise ApiError(400, str(exc)) from None
        return {"query": q, "mode": mode, "limit": limit, "graph_boost": boost, "min_cosine": floor,
                "rrf_k": vault.settings.rrf_k, "pool": result.pool,
                "warnings": result.warnings, "hits": [h.as_dict() for h in result.hits]}

    def logs_data() -> list[dict[str, Any]]:
        from k0maru.offload import records

        with lock:
            return [r.as_dict() for r in records.list_all(vault.store)]

    def log_data(node: str) -> tuple[dict[str, Any], Path]:
        from k0maru.offload import records

        with lock:
            try:
                rec = records.get(vault.store, node)
                path = records.log_file(vault.root, rec)
            except NotFoundError as exc:
                raise ApiError(404, str(exc)) from None
        return rec.as_dict(), path

    def slice_data(path: Path) -> dict[str, Any]:
        from k0maru.offload import slices

        try:
            if request.args.get("grep"):
                lines, total = slices.grep(path, request.args["grep"], num_arg("context", 3, 0, 50))
                return {"matches": total, "lines": [{"n": n, "text": t, "match": m} for n, t, m in lines]}
            start, end = slices.parse_range(request.args.get("lines") or "1:60")
            return {"lines": [{"n": n, "text": t, "match": False} for n, t in slices.line_range(path, start, end)]}
        except K0maruError as exc:
            raise ApiError(400, str(exc)) from None

    def tokens_data() -> dict[str, Any]:
        from k0maru.offload import records

        price = num_arg("price", vault.settings.token_price_per_mtok, 0, 1000, float)
        with lock:
            totals = records.totals(vault.store)
            points = [{"node_id": r.node_id, "created_at": r.created_at, "raw_tokens": r.raw_tokens,
                       "summary_tokens": r.summary_tokens} for r in reversed(records.list_all(vault.store, 10_000))]
        totals["price_per_mtok"] = price
        totals["saved_usd"] = round(totals["saved_tokens"] / 1e6 * price, 4)
        return {"totals": totals, "points": points}

    def note_data(path: str) -> dict[str, Any]:
        try:
            resolve_inside(vault.root, path)
        except PathOutsideVaultError as exc:
            raise ApiError(400, str(exc)) from None
        with lock:
            fresh()
            doc = vault.store.document_by_path(path)
            if doc is None:
                raise ApiError(404, f"no note {path!r} in the index")
            links = vault.store.links_from(doc.id)
            back = vault.store.backlinks(doc.id)
            resolve = vault.store.link_resolver()
            paths = {i: p for i, p, _ in vault.store.list_documents()}

        def resolve_path(key: str) -> str | None:
            doc_id = resolve(key)
            return paths.get(doc_id) if doc_id is not None else None

        return {"path": doc.path, "title": doc.title, "frontmatter": doc.frontmatter, "body": doc.body,
                "html": render_markdown(doc.body, resolve_path),
                "links": [{"target": x["target"], "path": x["path"], "title": x["title"]} for x in links],
                "backlinks": [{"path": b["path"], "title": b["title"]} for b in back]}

    # ---- API -----------------------------------------------------------------------------------------
    @app.get("/api/search")
    def api_search():
        return jsonify(search_data())

    @app.get("/api/logs")
    def api_logs():
        return jsonify([{k: v for k, v in r.items() if k not in ("summary", "mermaid")} for r in logs_data()])

    @app.get("/api/logs/<node>")
    def api_log(node: str):
        rec, path = log_data(node)
        return jsonify({**rec, "slice": slice_data(path)})

    @app.get("/api/tokens")
    def api_tokens():
        return jsonify(tokens_data())

    @app.get("/api/notes/<path:path>")
    def api_note(path: str):
        data = note_data(path)
        data.pop("html")
        return jsonify(data)

    @app.get("/api/status")
    def api_status():
        with lock:
            return jsonify(vault.status())

    # ---- pages -----------------------------------------------------------------------------------------
    @app.get("/")
    def home():
        return redirect(url_for("search_page"))

    @app.get("/search")
    def search_page():
        data = search_data() if (request.args.get("q") or "").strip() else None
        return render_template("search.html", data=data, modes=MODES, q=request.args.get("q", ""),
                               mode=request.args.get("mode", "hybrid"),
                               boost=request.args.get("boost", vault.settings.graph_boost),
                               floor=request.args.get("floor", vault.settings.min_cosine), page="search")

    @app.get("/tokens")
    def tokens_page():
        data = tokens_data()
        return render_template("tokens.html", data=data, chart=Markup(graph_svg.savings_chart(data["points"])),
                               page="tokens")

    @app.get("/logs")
    def logs_page():
        return render_template("logs.html", logs=logs_data(), page="logs")

    @app.get("/logs/<node>")
    def log_page(node: str):
        rec, path = log_data(node)
        try:
            svg = Markup(mermaid_svg.render(rec["mermaid"], f"log {rec['node_id']}"))
        except mermaid_svg.MermaidError as exc:
            svg = Markup("<p class='warn'>diagram not renderable: {}</p>").format(str(exc))
        return render_template("log.html", rec=rec, svg=svg, slice=slice_data(path), args=request.args, page="logs")

    @app.get("/notes")
    def notes_page():
        with lock:
            fresh()
            docs = vault.store.list_documents()
        return render_template("notes.html", docs=docs, page="notes")

    @app.get("/notes/<path:path>")
    def note_page(path: str):
        data = note_data(path)
        graph = graph_svg.neighbourhood(data["title"], [(x["path"], x["title"] or x["target"]) for x in data["links"] if x["path"]],
                                        [(b["path"], b["title"]) for b in data["backlinks"]], note_href)
        return render_template("note.html", note=data, body=Markup(data["html"]), graph=Markup(graph), page="notes")

    @app.get("/status")
    def status_page():
        with lock:
            info = vault.status()
        return render_template("status.html", info=info, page="status")

    @app.after_request
    def security_headers(resp):
        resp.headers["Content-Security-Policy"] = ("default-src 'self'; script-src 'self'; style-src 'self'; "
                                                   "img-src 'self' data:; font-src 'self'; object-src 'none'; "
                                                   "base-uri 'none'; frame-ancestors 'none'")
        resp.headers["X-Content-Type-Options"] = "nosniff"
        resp.headers["Referrer-Policy"] = "no-referrer"
        return resp

    return app
