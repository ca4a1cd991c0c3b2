"""`k0maru ui`: serve the console with waitress on 127.0.0.1; Ctrl+C stops it and frees the port."""

from __future__ import annotations

import os
import secrets
import signal
import sys
import threading
import webbrowser

from k0maru.errors import IndexReadOnlyError, K0maruError

DEFAULT_PORT = 8765
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def serve(vault_dir: str | None, host: str, port: int, open_browser: bool) -> int:
    import logging

    from waitress.server import create_server

    from k0maru.console.app import LOCAL_HOSTS, create_app
    from k0maru.progress import LazyProgress
    from k0maru.service.operations import Service

    token = None
    if host not in LOOPBACK:  # beyond this machine: every request must carry a secret
        token = os.environ.get("K0MARU_UI_TOKEN") or secrets.token_urlsafe(24)
        if len(token) < 16:
            raise K0maruError(
                "K0MARU_UI_TOKEN is shorter than 16 characters; set a longer one, or unset it "
                "and a token is generated"
            )
    service = Service.open(vault_dir)
    # vectors follow in the background: it listens at once
    try:
        with LazyProgress("scanning", True) as sp:
            service.catch_up(sp)
    except IndexReadOnlyError as exc:  # the console only reads: it shows the index as it is
        print(f"k0maru: warning: index not refreshed: {exc}", file=sys.stderr)
    app = create_app(service, LOCAL_HOSTS, token)
    # requests waiting for a thread are normal on a busy machine, not worth a line each
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    try:
        server = create_server(app, host=host, port=port, threads=8, ident="k0maru")
    except OSError as exc:
        service.close()
        raise K0maruError(
            f"cannot listen on {host}:{port} ({exc.strerror}); pick another --port or 0"
        ) from None

    def stop(_signum: int, _frame: object) -> None:
        server.close()  # closes the listening socket, which ends run()
        raise SystemExit(0)

    # before the URL is printed: whoever reads it may send Ctrl+C at once
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    url = f"http://{host}:{server.effective_port}/"
    try:
        print(
            f"k0maru console on {url}"
            + (f"?token={token}  (the token is shown once; " if token else "  (")
            + "Ctrl+C to stop)",
            flush=True,
        )
        if token:
            print(
                f"k0maru: warning: listening on {host}: anyone with the token can read this vault",
                file=sys.stderr,
            )
        if open_browser:
            threading.Timer(0.3, webbrowser.open, args=(url,)).start()
        server.run()
    except SystemExit:
        pass
    finally:
        server.close()
        service.close()  # background embedding stops first, then the vault closes under the lock
    print("k0maru console stopped", flush=True)
    return 0
