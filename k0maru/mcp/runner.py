"""Running the MCP tools on a vault's `Service`: each call's result as the answer the server sends
(its payload and its text block), each failure as the one line the agent gets. `k0maru mcp` opens
the vault this way before it imports the SDK (`LocalRunner.open`); tests and benchmarks pass their
own `Service`."""

from __future__ import annotations

import gc
import logging
import sys
import threading
from collections.abc import Callable
from typing import Any, NamedTuple, Protocol, TypeVar

from k0maru.errors import INTERNAL_ERROR, K0maruError, NotFoundError
from k0maru.mcp.tools import LOG_TOOLS, NOTE_FINDER, TOOLS
from k0maru.service.operations import Service
from k0maru.text import printable, shorten

log = logging.getLogger("k0maru.mcp")

T = TypeVar("T")


class ToolFailure(Exception):
    """A call that failed, as the one line the agent gets (the traceback, if any, went to stderr),
    with the JSON-RPC error code a request failing with it as a protocol error carries
    (errors.py)."""

    def __init__(self, line: str, code: int = INTERNAL_ERROR):
        super().__init__(line, code)
        self.line, self.code = line, code

    def __str__(self) -> str:
        return self.line


class Answer(NamedTuple):
    payload: dict[str, Any]  # the structured content
    text: str  # the text block: the same answer, for hosts that pass only text


class Runner(Protocol):
    """What the server calls: the tools by name, and the notes it serves as resources."""

    def call(self, name: str, arguments: dict[str, Any]) -> Answer: ...

    def note_list(self) -> list[tuple[str, str | None]]: ...

    def note_text(self, path: str) -> str: ...


def failure_line(what: str, exc: BaseException) -> str:
    """An unforeseen failure as one line naming its cause (the traceback goes to stderr)."""
    from k0maru.service.operations import database_error

    error = database_error(exc)
    if error is not None:
        return str(error)
    detail = shorten(" ".join(str(exc).split()), 200)
    return f"{what} failed: {type(exc).__name__}" + (f": {detail}" if detail else "")


def agent_line(exc: K0maruError) -> str:
    """An error as an agent can act on it: the tool that finds a name it got wrong, not a
    command."""
    finding = {
        "log node": f"call {LOG_TOOLS[1]} to find it",
        "note": f"take the path from a {NOTE_FINDER} hit",
    }
    if isinstance(exc, NotFoundError) and exc.what in finding:
        return exc.worded(finding[exc.what])
    return str(exc)


class LocalRunner:
    """The tools run in this process, on `service`."""

    def __init__(self, service: Service):
        self.service = service
        self.tools = {spec.name: spec for spec in TOOLS}
        self._threads: list[threading.Thread] = []
        self._owned = False

    @classmethod
    def open(cls, vault: str | None) -> LocalRunner | Refused:
        """The server's runner: the vault opened and watched, and the embedding model loading in a
        thread, started before the SDK import. A vault that cannot open gives a `Refused` runner:
        the server still starts and answers every call with the one line (also on stderr)."""
        try:
            runner = cls(Service.open(vault))
        except Exception as exc:
            return Refused.because(exc)
        runner._owned = True
        runner.service.watch()
        runner._threads = [t for t in (runner.service.load_model_early(),) if t is not None]
        return runner

    def started(self) -> None:
        """The server is built: the rest of the warm-up in a thread (it turns the collector on
        again)."""
        warm = threading.Thread(target=self.service.warm_up, name="k0maru-warm-up")
        warm.start()
        self._threads.append(warm)

    def close(self) -> None:
        """Wait for the warm-up threads (never tear down under one inside onnxruntime or SQLite),
        then close the vault this runner opened."""
        for thread in self._threads:
            thread.join()
        if self._owned:
            self.service.close()

    def call(self, name: str, arguments: dict[str, Any]) -> Answer:
        spec = self.tools[name]

        def answer() -> Answer:
            result = spec.fn(self.service, **arguments)
            # the one place every text answer passes: no control character reaches the model
            return Answer(result.payload(), printable(spec.text(result), keep="\n"))

        return self._run(name, answer)

    def note_list(self) -> list[tuple[str, str | None]]:
        return self._run(
            "listing the notes", lambda: [(n.path, n.title) for n in self.service.notes().notes]
        )

    def note_text(self, path: str) -> str:
        return self._run(f"reading {path[:100]}", lambda: self.service.read_note(path).text)

    @staticmethod
    def _run(what: str, work: Callable[[], T]) -> T:
        try:
            return work()
        except K0maruError as exc:
            raise ToolFailure(agent_line(exc), exc.mcp_code) from None
        except Exception as exc:  # one line for the agent, the traceback for stderr
            log.exception("%s failed", what)
            raise ToolFailure(failure_line(what, exc)) from None


class Refused:
    """The runner of a server whose vault did not open: every call fails with the line that said
    why, so the agent reads it (a server that exited would show it only "connection closed")."""

    def __init__(self, line: str, code: int):
        self.line, self.code = line, code

    @classmethod
    def because(cls, exc: Exception) -> Refused:
        if isinstance(exc, K0maruError):
            refused = cls(str(exc), exc.mcp_code)
        else:
            log.error("opening the vault failed", exc_info=exc)
            refused = cls(failure_line("opening the vault", exc), INTERNAL_ERROR)
        print(f"k0maru: error: {refused.line}", file=sys.stderr, flush=True)
        return refused

    def call(self, name: str, arguments: dict[str, Any]) -> Answer:
        raise ToolFailure(self.line, self.code)

    def note_list(self) -> list[tuple[str, str | None]]:
        raise ToolFailure(self.line, self.code)

    def note_text(self, path: str) -> str:
        raise ToolFailure(self.line, self.code)

    def started(self) -> None:
        gc.enable()  # `k0maru mcp` turned it off for a warm-up that will not run

    def close(self) -> None:
        pass
