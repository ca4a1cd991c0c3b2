"""The engine process of `k0maru mcp`: the vault's `Service` and the tools, run in a second process.

`k0maru mcp` starts it before importing the MCP SDK, so that the engine's imports, the index and the
model load on another core while the SDK is imported, and forwards each tool call to it over a pair of
pipes (pickled `(id, op, arguments)` one way, `(id, ok, value)` the other; calls run concurrently). The
engine serves until its request pipe closes (the server ended, or was killed), finishing what is in
flight. A call it did not answer because it died goes once to a new engine; if that one dies too, the
call fails with one line. This module is imported before the SDK: nothing heavy at module level."""

from __future__ import annotations

import contextlib
import gc
import itertools
import logging
import os
import subprocess
import sys
import threading
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from k0maru.errors import INTERNAL_ERROR, K0maruError

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from k0maru.mcp.runner import Answer

log = logging.getLogger("k0maru.mcp")

# for the engine to finish its calls in flight and close the index, then it is killed
CLOSE_WAIT_S = 10
AGAIN = "the next call starts a new one"
ENGINE_MAIN = "import sys; from k0maru.mcp.engine import main; sys.exit(main(sys.argv[1:]))"


def _failure(line: str, code: int = INTERNAL_ERROR) -> Exception:
    from k0maru.mcp.runner import ToolFailure

    return ToolFailure(line, code)


class _EngineGone(Exception):
    """The engine ended before it answered a call; str() says how."""


def _refusal(line: str, exit_code: int) -> K0maruError:
    """The engine could not open the vault: its line, and the exit status `k0maru mcp` ends with."""
    error = K0maruError(line)
    error.exit_code = exit_code
    return error


def start(vault: str | None) -> Engine | InProcess:
    """What runs the tools for `k0maru mcp`, started before the SDK import: an engine process where
    there is a second core to load it on beside the SDK, else the same work in this process (on one
    core a second process only competes with the first, and its start costs more than it saves)."""
    if len(os.sched_getaffinity(0)) > 1:
        return Engine(vault).start()
    return InProcess(vault)


class InProcess:
    """The engine's work in this process (the engine's, or on one core the server's): the vault opened
    and the model loading in a thread now, the rest of the warm-up in another once the server is built
    (`started`)."""

    def __init__(self, vault: str | None):
        from k0maru.mcp.runner import LocalRunner
        from k0maru.service.operations import Service

        self.service = Service.open(vault)
        self.service.watch()
        self._threads = [t for t in (self.service.load_model_early(),) if t is not None]
        self._runner = LocalRunner(self.service)

    def started(self) -> None:
        warm = threading.Thread(target=self.service.warm_up, name="k0maru-warm-up")
        warm.start()
        self._threads.append(warm)

    def call(self, name: str, arguments: dict[str, Any]) -> Answer:
        return self._runner.call(name, arguments)

    def note_list(self) -> list[tuple[str, str | None]]:
        return self._runner.note_list()

    def note_text(self, path: str) -> str:
        return self._runner.note_text(path)

    def close(self) -> None:
        for thread in self._threads:  # never tear down under a thread inside onnxruntime or SQLite
            thread.join()
        self.service.close()


class _Link:
    """One engine process and its pipes: the calls sent to it and not yet answered."""

    def __init__(self, vault: str | None):
        from multiprocessing.connection import Connection

        request_read, request_write = os.pipe()
        reply_read, reply_write = os.pipe()
        args = [str(request_read), str(reply_write)] + ([vault] if vault else [])
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", ENGINE_MAIN, *args],
                stdin=subprocess.DEVNULL,  # the server's stdin is the agent's JSON-RPC stream
                stdout=subprocess.DEVNULL,  # and its stdout too: the engine logs to stderr
                pass_fds=(request_read, reply_write),
            )
        except BaseException:
            os.close(request_write)
            os.close(reply_read)
            raise
        finally:
            os.close(request_read)
            os.close(reply_write)
        self.requests: Connection | None = Connection(request_write, readable=False)
        self.ready: Future[None] = Future()
        self.pending: dict[int, Future[Any]] = {}
        self.replies = Connection(reply_read, writable=False)

    def hang_up(self) -> None:
        """Close the request pipe: the engine finishes what it read and exits."""
        if self.requests is not None:
            self.requests.close()
            self.requests = None

    def ended(self) -> str:
        """What became of the process, as the line the calls it never answered get."""
        try:
            status = self.proc.wait(5)
        except subprocess.TimeoutExpired:
            return "k0maru's engine process stopped answering"
        how = f"killed by signal {-status}" if status < 0 else f"exit status {status}"
        return f"k0maru's engine process ended ({how}; its stderr says why)"


class Engine:
    """The server's side: starts the engine process and forwards calls to it (a `Runner`)."""

    def __init__(self, vault: str | None):
        self.vault = vault
        self._lock = threading.Lock()  # the link, the request ids, the pending calls
        self._ids = itertools.count(1)
        self._link: _Link | None = None
        self._closed = False

    def start(self) -> Engine:
        """Start the engine process; it says when it has opened the vault (`wait_ready`)."""
        with self._lock:
            self._start()
        return self

    def started(self) -> None:
        """The server is built: wait until the engine has opened the vault (a `K0maruError` with its one
        line if it could not), then turn the server's garbage collector on."""
        assert self._link is not None
        self._link.ready.result()
        gc.freeze()  # what the start made lives as long as the process: no collection walks it again
        gc.enable()

    def call(self, name: str, arguments: dict[str, Any]) -> Answer:
        answer: Answer = self._ask("call", name, arguments)
        return answer

    def note_list(self) -> list[tuple[str, str | None]]:
        notes: list[tuple[str, str | None]] = self._ask("note_list")
        return notes

    def note_text(self, path: str) -> str:
        text: str = self._ask("note_text", path)
        return text

    def close(self) -> int | None:
        """Close the request pipe (the engine finishes its calls and exits); its exit status."""
        with self._lock:
            self._closed = True
            link, self._link = self._link, None
            if link is None:
                return None
            link.hang_up()
        try:
            return link.proc.wait(CLOSE_WAIT_S)
        except subprocess.TimeoutExpired:
            log.warning("the engine process did not end in %s s; killing it", CLOSE_WAIT_S)
            link.proc.kill()
            return link.proc.wait()

    def _start(self) -> _Link:
        link = self._link = _Link(self.vault)
        threading.Thread(target=self._read, args=(link,), daemon=True).start()
        return link

    def _ask(self, op: str, *args: Any) -> Any:
        """Send one request and wait for its answer. One the engine did not answer (it ended) goes once
        to a new engine: every tool is idempotent, so one that ran already is harmless to run again. If
        that engine ends too, the call fails with the line saying what became of it."""
        for attempt in range(2):
            with self._lock:
                if self._closed:
                    raise _failure("the server is closing")
                link = self._link
                if link is None or link.requests is None:
                    link = self._start()
            try:
                link.ready.result()  # the vault is open
            except K0maruError as exc:
                raise _failure(str(exc)) from None
            future = self._send(link, op, args)
            if future is None:  # the engine is gone: the next try starts another
                if attempt:
                    raise _failure(f"{link.ended()}; {AGAIN}")
                continue
            try:
                return future.result()
            except _EngineGone as gone:
                if attempt:
                    raise _failure(f"{gone}; {AGAIN}") from None
        raise AssertionError("unreachable")

    def _send(self, link: _Link, op: str, args: tuple[Any, ...]) -> Future[Any] | None:
        """The request sent to `link`'s engine: the future its answer completes; None when the pipe
        is closed (the link is hung up)."""
        future: Future[Any] = Future()
        with self._lock:
            request_id = next(self._ids)
            link.pending[request_id] = future
            if link.requests is not None:
                with contextlib.suppress(OSError):
                    link.requests.send((request_id, op, args))
                    return future
            link.pending.pop(request_id, None)
            link.hang_up()
        return None

    def _read(self, link: _Link) -> None:
        """The reply pipe's reader: each reply to its caller; when the engine ends, a line to each
        call it did not answer."""
        try:
            while True:
                request_id, ok, value = link.replies.recv()
                if request_id == 0:  # the engine's first word: the vault is open, or why not
                    link.ready.set_result(None) if ok else link.ready.set_exception(
                        _refusal(*value)
                    )
                    continue
                with self._lock:
                    future = link.pending.pop(request_id, None)
                if future is not None:
                    future.set_result(value) if ok else future.set_exception(_failure(*value))
        except (EOFError, OSError):
            pass
        finally:
            link.replies.close()
        with self._lock:
            link.hang_up()
        line = "the server is closing" if self._closed else link.ended()
        if not link.ready.done():
            link.ready.set_exception(_refusal(line, 1))
        with self._lock:
            waiting = list(link.pending.values())
            link.pending.clear()
        for future in waiting:
            future.set_exception(_EngineGone(line))


def main(argv: list[str]) -> int:
    """The engine process: open the vault, say so, warm up, and answer calls until the pipe closes."""
    import signal
    from concurrent.futures import ThreadPoolExecutor
    from multiprocessing.connection import Connection

    gc.disable()  # until the warm-up is done
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the server, which closes the pipe
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="k0maru-mcp: %(message)s")
    requests = Connection(int(argv[0]), writable=False)
    replies = Connection(int(argv[1]), readable=False)
    send_lock = threading.Lock()

    def reply(request_id: int, ok: bool, value: Any) -> None:
        with send_lock, contextlib.suppress(OSError):  # the server is gone
            replies.send((request_id, ok, value))

    from k0maru.mcp.runner import ToolFailure, failure_line

    try:
        local = InProcess(argv[2] if len(argv) > 2 else None)
    except K0maruError as exc:
        reply(0, False, (str(exc), exc.exit_code))
        return exc.exit_code
    except Exception as exc:  # noqa: BLE001 - one line for the server to print
        reply(0, False, (failure_line("opening the vault", exc), 1))
        return 1
    local.started()
    reply(0, True, None)

    def answer(request_id: int, op: str, args: tuple[Any, ...]) -> None:
        try:
            reply(request_id, True, getattr(local, op)(*args))
        except ToolFailure as exc:
            reply(request_id, False, (exc.line, exc.code))
        except Exception as exc:  # noqa: BLE001 - e.g. an answer that does not pickle
            log.exception("%s failed", op)
            reply(request_id, False, (failure_line(op, exc), INTERNAL_ERROR))

    try:
        with ThreadPoolExecutor(max_workers=8, thread_name_prefix="k0maru-call") as calls:
            while True:
                try:
                    request_id, op, args = requests.recv()
                except (EOFError, OSError):
                    break
                calls.submit(answer, request_id, op, args)
    finally:
        local.close()
    return 0
