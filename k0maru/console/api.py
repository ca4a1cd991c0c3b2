"""The console's JSON API: the service's compact payloads."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify

from k0maru.console.params import log_slice, number, search, search_args, service

api = Blueprint("api", __name__, url_prefix="/api")


@api.get("/search")
def api_search() -> Any:
    data = search(search_args())
    return jsonify({**data, "hits": [h.payload() for h in data["hits"]]})


@api.get("/logs")
def api_logs() -> Any:
    return jsonify([r.payload() for r in service().log_list(10_000)])


@api.get("/logs/<node>")
def api_log(node: str) -> Any:
    view = service().log_view(node)
    return jsonify({**view.payload(), "slice": log_slice(node, view.failure_lines).payload()})


@api.get("/tokens")
def api_tokens() -> Any:
    return jsonify(service().token_scoreboard(number("price", None, 0, 1000, float)).payload())


@api.get("/notes/<path:path>")
def api_note(path: str) -> Any:
    return jsonify(service().note_view(path).payload())


@api.get("/status")
def api_status() -> Any:
    return jsonify(service().status().payload())


@api.get("/counts")
def api_counts() -> Any:
    """The dashboard's counts: links to no note, every tag and kind with its notes."""
    return jsonify(service().index_counts(fresh=True).payload())
