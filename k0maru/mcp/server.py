"""MCP stdio server: the tools of `k0maru.mcp.tools` and the vault's notes as resources, each call
run by a `Runner` (under `k0maru mcp`, a `LocalRunner` over the vault it opened).

Only JSON-RPC goes to stdout (logs go to stderr). The tool list and the instructions are derived
from the registry; each result is sent as structured content and as a text block, each complete (a
host passes the model one of them)."""

from __future__ import annotations

import inspect
import logging
import sys
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from k0maru.errors import RESOURCE_NOT_FOUND
from k0maru.mcp.runner import Runner, ToolFailure, failure_line
from k0maru.mcp.tools import LOG_TOOLS, TOOLS, ToolSpec

if TYPE_CHECKING:
    from k0maru.mcp.runner import LocalRunner, Refused

log = logging.getLogger("k0maru.mcp")


PAGE_SIZE = 200  # notes per resources/list page


def instructions() -> str:
    """The server's instructions, derived from the tool list: when to call each tool, and when to
    run a command through `k0maru offload` (the tools that read offloaded logs named as they are
    registered)."""
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


def _bind(spec: ToolSpec, runner: Runner) -> Any:
    """The function the SDK serves as the tool `spec`: its input and output schema are the tool's
    function with the `Service` bound (a bound parameter is not one the agent passes), its calls go
    to `runner`, and its answer goes out once as structured content and once as text (hosts pass the
    model one or the other), each complete."""
    from mcp.types import CallToolResult, TextContent

    def call(**arguments: Any) -> Any:
        try:
            answer = runner.call(spec.name, arguments)
        except ToolFailure as exc:  # a tool execution error: the model reads its one line
            return CallToolResult(content=[TextContent(type="text", text=exc.line)], is_error=True)
        return CallToolResult(
            content=[TextContent(type="text", text=answer.text)], structured_content=answer.payload
        )

    call.__name__ = call.__qualname__ = spec.name  # the schema's title: `<tool>Arguments`
    signature = inspect.signature(spec.fn, eval_str=True)
    # the runner supplies the Service: the agent's parameters are the rest
    call.__signature__ = signature.replace(  # type: ignore[attr-defined]  # PEP 362
        parameters=list(signature.parameters.values())[1:]
    )
    return call


def unknown_tool(name: str) -> str:
    """The line for a call to a tool that does not exist: the likely one, and every one."""
    from k0maru.suggest import close_names

    names = [spec.name for spec in TOOLS]
    maybe = close_names(name, names, 1) or [n for n in names if name and name.lower() in n]
    guess = f"; did you mean {maybe[0]}?" if maybe else ";"
    return f"unknown tool {name[:100]!r}{guess} the tools: {', '.join(names)}"


def not_found_code(protocol_version: str | None) -> int:
    """The JSON-RPC code of a resource that does not exist, as the client's protocol version says:
    -32002 up to 2025-11-25, Invalid Params from 2026-07-28 on (SEP-2164)."""
    from mcp.types import INVALID_PARAMS
    from mcp.types.version import is_version_at_least

    modern = protocol_version is not None and is_version_at_least(protocol_version, "2026-07-28")
    return INVALID_PARAMS if modern else RESOURCE_NOT_FOUND


def resource_errors(ctx: Any, call_next: Any) -> Any:
    """Server middleware: a resource that does not exist fails with the code of the client's
    protocol version (`not_found_code`)."""
    from mcp.shared.exceptions import MCPError

    async def middleware() -> Any:
        try:
            return await call_next(ctx)
        except MCPError as exc:
            if exc.error.code != RESOURCE_NOT_FOUND:
                raise
            code = not_found_code(getattr(ctx, "protocol_version", None))
            raise MCPError(code=code, message=exc.error.message, data=exc.error.data) from None

    return middleware()


def resource_pages(runner: Runner) -> Any:
    """Server middleware answering resources/list a page at a time: `cursor` is the offset of the
    page."""
    import anyio
    from mcp.shared.exceptions import MCPError
    from mcp.types import INVALID_PARAMS, ListResourcesResult, Resource

    async def middleware(ctx: Any, call_next: Any) -> Any:
        if ctx.method == "resources/read":
            return await resource_errors(ctx, call_next)
        if ctx.method != "resources/list":
            return await call_next(ctx)
        cursor = (ctx.params or {}).get("cursor")
        if cursor is not None and not (isinstance(cursor, str) and cursor.isdigit()):
            raise MCPError(code=INVALID_PARAMS, message="invalid cursor; pass a nextCursor as sent")
        start = int(cursor or 0)
        try:
            notes = await anyio.to_thread.run_sync(runner.note_list)
        except ToolFailure as exc:
            raise MCPError(code=exc.code, message=exc.line) from None
        page = notes[start : start + PAGE_SIZE]
        more = start + PAGE_SIZE < len(notes)
        return ListResourcesResult(
            resources=[
                Resource(uri=note_uri(path), name=path, title=title, mime_type="text/markdown")
                for path, title in page
            ],
            next_cursor=str(start + PAGE_SIZE) if more else None,
        )

    return middleware


def build_server(runner: Runner) -> Any:
    """The SDK server: the tools and the notes as `runner` serves them."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
    from mcp.shared.exceptions import MCPError
    from mcp.types import INVALID_PARAMS, ToolAnnotations
    from pydantic import ValidationError

    from k0maru import __version__

    names = {spec.name for spec in TOOLS}

    class K0maruServer(MCPServer):
        async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
            if name not in names:  # a protocol error, as the MCP spec has it
                raise MCPError(code=INVALID_PARAMS, message=unknown_tool(name))
            try:
                return await super().call_tool(name, arguments, context)
            except UnexpectedToolError as exc:  # e.g. a result its output schema refuses
                cause = exc.__cause__ or exc
                log.error("%s failed", name, exc_info=cause)
                raise ToolError(failure_line(name, cause)) from None
            except ToolError as exc:  # arguments: one readable line, no pydantic boilerplate
                if isinstance(exc.__cause__, ValidationError):
                    raise ToolError(invalid_arguments(name, exc.__cause__)) from None
                raise

    server = K0maruServer(
        "k0maru",
        instructions=instructions(),
        version=__version__,
        log_level="WARNING",
        middleware=[resource_pages(runner)],
    )
    for spec in TOOLS:
        server.add_tool(
            _bind(spec, runner),
            name=spec.name,
            title=spec.title,
            description=spec.description,
            annotations=ToolAnnotations.model_validate(spec.annotations()),
        )

    @server.resource(
        "k0maru://note/{+path}",
        name="note",
        mime_type="text/markdown",
        description="A note of the vault, by its vault-relative path",
    )
    def note_resource(path: str) -> str:
        try:
            return runner.note_text(path)
        except ToolFailure as exc:  # its own code and one line, not "Error creating resource ..."
            raise MCPError(code=exc.code, message=exc.line, data={"uri": note_uri(path)}) from None

    return server


def serve(runner: LocalRunner | Refused) -> int:
    """Serve on stdio, each call run by `runner` (opened before the SDK import; a `Refused` one
    answers each call with why the vault did not open). The garbage
    collector is off until the warm-up is done (`k0maru mcp` turns it off before its imports): the
    start makes hundreds of thousands of objects that live as long as the process."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="k0maru-mcp: %(message)s")
    try:
        server = build_server(runner)
        runner.started()
        server.run("stdio")
    finally:
        runner.close()
    return 0
