"""MCP stdio server: the tools of `k0maru.mcp.tools` and the vault's notes as resources.

Only JSON-RPC goes to stdout (logs go to stderr). The tool list and the instructions are derived
from the registry; each result is sent as structured content and as a text block, each complete (a host
passes the model one of them)."""

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
from k0maru.mcp.tools import LOG_TOOLS, NOTE_FINDER, TOOLS, ToolSpec
from k0maru.service.operations import Service

log = logging.getLogger("k0maru.mcp")


PAGE_SIZE = 200  # notes per resources/list page


def instructions() -> str:
    """The server's instructions, derived from the tool list: when to call each tool, and when to run a
    command through `k0maru offload` (the tools that read offloaded logs named as they are registered)."""
    calls = "; ".join(f"{spec.name} {spec.when}" for spec in TOOLS)
    readers = " or ".join(LOG_TOOLS)
    offload = (
        " Run test, build and lint commands whose output may be long (pytest, cargo test/build, go "
        "test, npm test, make, tsc, mvn, gradle, ruff, mypy, eslint) as `k0maru offload -- CMD`: the "
        "command runs as usual, its exit status is kept, and a long log is stored and replaced by a short "
        f"summary with a node id to read with {readers}."
    )
    return (
        "k0maru is this project's memory: decisions, ADRs, cards, incident logs and offloaded build/test "
        f"logs. Call {calls}.{offload}"
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


def failure_line(what: str, exc: BaseException) -> str:
    """An unforeseen failure as one line naming its cause (the traceback goes to stderr)."""
    from k0maru.service.operations import database_error

    error = database_error(exc)
    if error is not None:
        return str(error)
    detail = " ".join(str(exc).split())
    detail = detail if len(detail) <= 200 else detail[:199] + "…"
    return f"{what} failed: {type(exc).__name__}" + (f": {detail}" if detail else "")


def agent_hint(message: str) -> str:
    """An error message as an agent can act on it: MCP tools named instead of k0maru commands."""
    head, cli, rest = message.partition("; use a node id printed by `k0maru offload`")
    if cli:
        return f"{head}{rest}; call {LOG_TOOLS[1]} to find it"
    head, listing, rest = message.partition("; list the notes to see their paths")
    if listing:
        return f"{head}; take the path from a {NOTE_FINDER} hit{rest}"
    return message


def _bind(spec: ToolSpec, service: Service) -> Any:
    """The tool function with `service` bound: its signature (less the first parameter), name and
    docstring make the schema; its result goes out once as structured content and once as text (hosts
    pass the model one or the other), each complete."""
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import CallToolResult, TextContent

    sig = inspect.signature(spec.fn, eval_str=True)

    @functools.wraps(spec.fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            result = spec.fn(service, *args, **kwargs)
        except K0maruError as exc:
            raise ToolError(agent_hint(str(exc))) from None
        except Exception as exc:  # noqa: BLE001 - one line for the agent, the traceback for stderr
            log.exception("%s failed", spec.name)
            raise ToolError(failure_line(spec.name, exc)) from None
        return CallToolResult(
            content=[TextContent(type="text", text=spec.text(result))],
            structured_content=result.payload(),
        )

    call.__signature__ = sig.replace(parameters=list(sig.parameters.values())[1:])  # type: ignore[attr-defined]
    del call.__wrapped__  # inspect must see the bound signature, not the original's
    return call


def resource_pages(service: Service) -> Any:
    """Server middleware answering resources/list a page at a time: `cursor` is the offset of the page."""
    import anyio
    from mcp.shared.exceptions import MCPError
    from mcp.types import INVALID_PARAMS, ListResourcesResult, Resource

    async def middleware(ctx: Any, call_next: Any) -> Any:
        if ctx.method != "resources/list":
            return await call_next(ctx)
        cursor = (ctx.params or {}).get("cursor")
        if cursor is not None and not (isinstance(cursor, str) and cursor.isdigit()):
            raise MCPError(code=INVALID_PARAMS, message="invalid cursor; pass a nextCursor as sent")
        start = int(cursor or 0)
        notes = (await anyio.to_thread.run_sync(service.notes)).notes
        page = notes[start : start + PAGE_SIZE]
        more = start + PAGE_SIZE < len(notes)
        return ListResourcesResult(
            resources=[
                Resource(
                    uri=note_uri(n.path), name=n.path, title=n.title, mime_type="text/markdown"
                )
                for n in page
            ],
            next_cursor=str(start + PAGE_SIZE) if more else None,
        )

    return middleware


def build_server(service: Service) -> Any:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ResourceError, ToolError, UnexpectedToolError
    from mcp.types import ToolAnnotations
    from pydantic import ValidationError

    from k0maru import __version__

    class K0maruServer(MCPServer):
        async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
            try:
                return await super().call_tool(name, arguments, context)
            except UnexpectedToolError as exc:  # e.g. a result its output schema refuses
                cause = exc.__cause__ or exc
                log.error("%s failed", name, exc_info=cause)
                raise ToolError(failure_line(name, cause)) from None
            except ToolError as exc:  # arguments: one readable line, no pydantic boilerplate
                if isinstance(exc.__cause__, ValidationError):
                    raise ToolError(invalid_arguments(name, exc.__cause__)) from None
                prefix = f"Error executing tool {name}: "  # the SDK's, before our own one line
                if str(exc).startswith(prefix):
                    raise ToolError(str(exc).removeprefix(prefix)) from None
                raise

    server = K0maruServer(
        "k0maru",
        instructions=instructions(),
        version=__version__,
        log_level="WARNING",
        middleware=[resource_pages(service)],
    )
    for spec in TOOLS:
        server.tool(
            title=spec.title, annotations=ToolAnnotations.model_validate(spec.annotations())
        )(_bind(spec, service))

    @server.resource(
        "k0maru://note/{+path}",
        name="note",
        mime_type="text/markdown",
        description="A note of the vault, by its vault-relative path",
    )
    def note_resource(path: str) -> str:
        try:
            return service.read_note(path).text
        except K0maruError as exc:
            raise ResourceError(str(exc)) from None
        except Exception as exc:  # noqa: BLE001 - one line, not "Error creating resource from template"
            log.exception("reading %s failed", path)
            raise ResourceError(failure_line(f"reading {path[:100]}", exc)) from None

    return server


def warm_up(service: Service) -> None:
    """Bring the index up to date and load what the first recall needs, off the request path: the
    BM25 index, the model when the index has vectors (a hybrid recall embeds its query, so it is loaded
    for the first one either way) and the token counter the answers are fitted with. Then hand the heap
    this freed back and turn the garbage collector on again (`serve` runs with it off until here)."""
    from k0maru import llm_tokens
    from k0maru.memory import release_free_memory

    try:
        with service.live.session() as vault:
            vault.recall.lexical.get(vault.store)
            if vault.store.has_vectors():
                vault.embedder  # noqa: B018 - the property loads the model
            sample = "\n".join(vault.store.text_sample(64))
            vault.store.release_mapped_pages()
        llm_tokens.prepare(
            sample
        )  # a vault in other scripts: a counter that covers them from the start
        gc.freeze()  # what the start made lives as long as the process: no collection walks it again
        release_free_memory()
    except Exception as exc:  # noqa: BLE001 - a failed warm-up must not kill the server
        log.warning("warm-up failed: %s", exc)
    finally:
        gc.enable()


def load_model_early(service: Service) -> threading.Thread | None:
    """Start loading the embedding model in a thread of its own, to run while the SDK is imported:
    onnxruntime builds its session without holding the interpreter lock. Its imports are done here
    first, since two threads importing at once slow each other down. None when embeddings are off."""
    vault = service.live.vault
    if not vault.settings.embed:
        return None
    try:
        import numpy  # noqa: F401
        import onnxruntime  # noqa: F401
    except Exception:  # noqa: BLE001 - missing or broken (a library it links): the warm-up's load says so
        return None

    def load() -> None:
        try:
            vault.embedder  # noqa: B018 - the property loads the model
        except Exception as exc:  # noqa: BLE001 - the warm-up tries again and says why
            log.warning("loading the embedding model failed: %s", exc)

    thread = threading.Thread(target=load, name="k0maru-model")
    thread.start()
    return thread


def serve(vault_dir: str | None) -> int:
    """Serve on stdio. The file watcher starts and the embedding model loads while the SDK is imported
    (`load_model_early`), so both are ready by the first request; the rest of the warm-up follows in a
    thread once the SDK is in. The garbage collector is off until the warm-up is done (`k0maru mcp`
    turns it off before its imports): the start makes hundreds of thousands of objects that live as
    long as the process, and every collection in between would walk them for nothing."""
    gc.disable()
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="k0maru-mcp: %(message)s")
    service = Service.open(vault_dir)
    service.live.watch()
    model = load_model_early(service)
    server = build_server(service)
    warm = threading.Thread(target=warm_up, args=(service,), name="k0maru-warm-up")
    warm.start()
    try:
        server.run("stdio")
    finally:
        for thread in (model, warm):  # never tear down under a thread inside onnxruntime or SQLite
            if thread is not None:
                thread.join()
        service.close()
    return 0
