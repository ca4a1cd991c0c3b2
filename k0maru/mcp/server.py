"""MCP stdio server: the tools of `k0maru.mcp.tools` and the vault's notes as resources.

Only JSON-RPC goes to stdout (logs go to stderr). The tool list and the instructions are derived
from the registry; each result is sent once, as structured content, with a short text block beside it."""

from __future__ import annotations

import functools
import gc
import inspect
import logging
import sys
import threading
from typing import Any
from urllib.parse import quote

from k0maru.errors import K0maruError
from k0maru.mcp.tools import TOOLS, ToolSpec
from k0maru.service.operations import Service

log = logging.getLogger("k0maru.mcp")


def instructions() -> str:
    calls = ", ".join(f"{spec.name} {spec.when}" for spec in TOOLS)
    return (
        "k0maru is this project's memory: decisions, ADRs, cards, incident logs and offloaded build/test "
        f"logs. Call {calls}."
    )


def note_uri(path: str) -> str:
    return "k0maru://note/" + quote(path, safe="/")


def invalid_arguments(tool: str, exc: Any) -> str:
    """A pydantic ValidationError of a tool's arguments as one line (the input is never echoed)."""
    parts = []
    for err in exc.errors()[:3]:
        where = ".".join(str(p) for p in err.get("loc", ()) if p != "arguments") or "arguments"
        parts.append(f"`{where}`: {err.get('msg', 'invalid')}")
    return f"invalid arguments for {tool}: " + "; ".join(parts)


def _bind(spec: ToolSpec, service: Service) -> Any:
    """The tool function with `service` bound: its signature (less the first parameter), name and
    docstring make the schema; its result goes out once as structured content plus a brief text."""
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import CallToolResult, TextContent

    sig = inspect.signature(spec.fn, eval_str=True)

    @functools.wraps(spec.fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            result = spec.fn(service, *args, **kwargs)
        except K0maruError as exc:
            raise ToolError(str(exc)) from None
        return CallToolResult(
            content=[TextContent(type="text", text=spec.brief(result))],
            structured_content=result.payload(),
        )

    call.__signature__ = sig.replace(parameters=list(sig.parameters.values())[1:])  # type: ignore[attr-defined]
    del call.__wrapped__  # inspect must see the bound signature, not the original's
    return call


def build_server(service: Service) -> Any:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ResourceError, ToolError
    from mcp.types import Resource
    from pydantic import ValidationError

    from k0maru import __version__

    class K0maruServer(MCPServer):
        async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
            try:
                return await super().call_tool(name, arguments, context)
            except (
                ToolError
            ) as exc:  # argument validation: one readable line, no pydantic boilerplate
                if isinstance(exc.__cause__, ValidationError):
                    raise ToolError(invalid_arguments(name, exc.__cause__)) from None
                raise

        async def list_resources(self) -> list[Resource]:  # the notes change: list them live
            import anyio

            notes = await anyio.to_thread.run_sync(service.notes)
            return [
                Resource(uri=note_uri(p), name=p, title=t, mime_type="text/markdown")
                for p, t in notes
            ]

    server = K0maruServer(
        "k0maru", instructions=instructions(), version=__version__, log_level="WARNING"
    )
    for spec in TOOLS:
        server.tool(title=spec.title)(_bind(spec, service))

    @server.resource(
        "k0maru://note/{+path}",
        name="note",
        mime_type="text/markdown",
        description="A note of the vault, by its vault-relative path",
    )
    def read_note(path: str) -> str:
        try:
            return service.read_note(path)
        except K0maruError as exc:
            raise ResourceError(str(exc)) from None

    return server


def warm_up(service: Service) -> None:
    """Bring the index up to date, load the BM25 index and the token counter the answers are fitted with,
    off the request path, then hand the heap this freed back. The model is not loaded here: it adds ~60 MB,
    so it waits for the first query that needs a vector."""
    from k0maru import llm_tokens
    from k0maru.memory import release_free_memory

    try:
        with service.live.session() as vault:
            vault.recall.lexical.get(vault.store)
            sample = "\n".join(vault.store.text_sample(64))
            vault.store.release_mapped_pages()
        llm_tokens.prepare(
            sample
        )  # a vault in other scripts: a counter that covers them from the start
        release_free_memory()
    except Exception as exc:  # noqa: BLE001 - a failed warm-up must not kill the server
        log.warning("warm-up failed: %s", exc)


def serve(vault_dir: str | None) -> int:
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="k0maru-mcp: %(message)s")
    service = Service.open(vault_dir)
    server = build_server(
        service
    )  # importing the SDK is the path to `initialize`: nothing runs beside it
    gc.freeze()  # the SDK's ~560 model classes live as long as the process: no collection walks them again
    warm = threading.Thread(target=warm_up, args=(service,), name="k0maru-warm-up")
    warm.start()
    try:
        server.run("stdio")
    finally:
        warm.join()  # never tear down under a thread still inside onnxruntime or SQLite
        service.close()
    return 0
