"""Flask app factory: the API and page blueprints over one `Service`, one error handler that maps
`NotFoundError` to 404 and any other `K0maruError` to 400 (JSON under /api/, a page elsewhere), and
a Host check so a DNS-rebinding page cannot read the vault through the user's browser."""

from __future__ import annotations

import hmac
from functools import partial
from typing import Any
from urllib.parse import quote, urlencode

from flask import Flask, jsonify, redirect, render_template, request
from werkzeug.exceptions import HTTPException

from k0maru.console.api import api
from k0maru.console.pages import pages, when
from k0maru.console.render import passage
from k0maru.errors import K0maruError, NotFoundError
from k0maru.resources import resource_path
from k0maru.service.operations import Service

LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]")


def _error(status: int, message: str) -> Any:
    if request.path.startswith("/api/"):
        return jsonify({"error": message}), status
    return render_template("error.html", status=status, message=message), status


TOKEN_COOKIE = "k0maru_token"


def obsidian_href(vault_name: str, path: str) -> str:
    """Obsidian's link that opens the note at `path` of the vault named `vault_name` (Obsidian
    names a vault after its folder), every part URL-encoded."""
    return f"obsidian://open?{urlencode({'vault': vault_name, 'file': path}, quote_via=quote)}"


def create_app(
    service: Service, allowed_hosts: tuple[str, ...] = LOCAL_HOSTS, token: str | None = None
) -> Flask:
    """`allowed_hosts`: the Host header names (any port) the console answers; others get 403.
    `token` (a console bound beyond loopback): every request must carry it, as `?token=` (then kept
    in a cookie), the cookie, or `Authorization: Bearer`; any Host is then answered."""
    base = resource_path("web")
    app = Flask(
        "k0maru.console",
        template_folder=str(base / "templates"),
        static_folder=str(base / "static"),
    )
    app.config["JSON_SORT_KEYS"] = False
    app.extensions["k0maru"] = service
    app.jinja_env.globals["note_href"] = lambda path: "/notes/" + quote(path)
    app.jinja_env.globals["obsidian_href"] = partial(obsidian_href, service.root.name)
    app.jinja_env.globals["when"] = when
    app.jinja_env.filters["passage"] = passage
    app.register_blueprint(api)
    app.register_blueprint(pages)

    app.before_request(lambda: _gate(allowed_hosts, token))

    @app.errorhandler(K0maruError)
    def k0maru_error(err: K0maruError) -> Any:
        return _error(404 if isinstance(err, NotFoundError) else 400, str(err))

    @app.errorhandler(HTTPException)
    def http_error(err: HTTPException) -> Any:
        return _error(err.code or 500, err.description or err.name)

    @app.after_request
    def security_headers(resp: Any) -> Any:
        resp.headers["Content-Security-Policy"] = (
            "default-src 'self'; script-src 'self'; style-src 'self'; "
            "img-src 'self' data:; font-src 'self'; object-src 'none'; "
            "base-uri 'none'; frame-ancestors 'none'"
        )
        resp.headers["X-Content-Type-Options"] = "nosniff"
        resp.headers["Referrer-Policy"] = "no-referrer"
        return resp

    return app


def _gate(allowed_hosts: tuple[str, ...], token: str | None) -> Any:
    """Before every request: without a token, only the local Host names; with one, only its holders.
    None lets the request through."""
    if token is not None:
        return _token_holders_only(token)
    host = (request.host or "").lower()
    name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    if name not in allowed_hosts:
        return _error(403, "this console answers only requests addressed to its own local address")
    if "\x00" in request.path:
        return _error(400, "invalid character in the path")
    return None


def _token_holders_only(token: str) -> Any:
    """A request carrying `token` (`?token=`, the cookie or `Authorization: Bearer`) passes; a GET
    that brought it in `?token=` is sent on without it, the token kept in a cookie."""
    given = request.args.get("token") or ""
    bearer = request.headers.get("Authorization", "")
    candidates = (
        given,
        request.cookies.get(TOKEN_COOKIE, ""),
        bearer.removeprefix("Bearer ") if bearer.startswith("Bearer ") else "",
    )
    if not any(hmac.compare_digest(c.encode(), token.encode()) for c in candidates if c):
        return _error(401, "this console needs its token: open the URL `k0maru ui` printed")
    if "\x00" in request.path:
        return _error(400, "invalid character in the path")
    if given and request.method == "GET":  # keep it in a cookie, and out of the address bar
        args = {k: v for k, v in request.args.items(multi=True) if k != "token"}
        resp = redirect(request.path + ("?" + urlencode(args) if args else ""))
        resp.set_cookie(TOKEN_COOKIE, token, httponly=True, samesite="Strict")
        return resp
    return None
