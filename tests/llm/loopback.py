"""A real HTTP server on 127.0.0.1 that plays scripted model-endpoint responses.

Tests point real SDK clients at it: it speaks whatever the script says on any POST path,
typically ``/v1/chat/completions`` (OpenAI-compatible) and ``/v1/messages`` (Anthropic).

Scripting: ``server.script(*responses, path=...)`` appends ``ScriptedResponse`` values to that
path's queue; each request pops the next one. A response is a status, a raw body, headers and
an optional delay before answering (to trip client timeouts). Builders make the usual ones:
``chat_text``, ``chat_tool_calls``, ``http_error``, ``context_length_error``,
``anthropic_text``, ``anthropic_tool_use``. Every request is recorded (``server.requests``) with
its path, headers and body. A request with nothing scripted for its path is answered with
HTTP 400 (never retried) and also listed in ``server.unscripted``, so a test can assert that
the script was consumed exactly.

Only loopback: the server binds 127.0.0.1 on an ephemeral port and stops when closed; delays
end early when the server closes.
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict, deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self, cast

if TYPE_CHECKING:
    from reverie.core.messages import JSONObject, JSONValue

CHAT_PATH = "/v1/chat/completions"
MESSAGES_PATH = "/v1/messages"


@dataclass(frozen=True, slots=True, kw_only=True)
class ScriptedResponse:
    """One answer the server will give: status, raw body, headers, delay in seconds."""

    status: int = 200
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0

    @classmethod
    def json(
        cls,
        obj: JSONValue,
        *,
        status: int = 200,
        headers: Mapping[str, str] | None = None,
        delay: float = 0.0,
    ) -> ScriptedResponse:
        """Return a response whose body is ``obj`` as JSON."""
        all_headers = {"Content-Type": "application/json", **(headers or {})}
        body = json.dumps(obj).encode()
        return cls(status=status, body=body, headers=all_headers, delay=delay)


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordedRequest:
    """One request the server received."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: bytes

    def json(self) -> JSONObject:
        """Return the body parsed as a JSON object."""
        return cast("JSONObject", json.loads(self.body))


class LoopbackServer:
    """A threaded HTTP server on 127.0.0.1 answering POSTs from per-path scripts."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queues: defaultdict[str, deque[ScriptedResponse]] = defaultdict(deque)
        self._closing = threading.Event()
        self.requests: list[RecordedRequest] = []
        self.unscripted: list[RecordedRequest] = []
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()

    @property
    def root_url(self) -> str:
        """``http://127.0.0.1:PORT`` (no path)."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL, ``http://127.0.0.1:PORT/v1``."""
        return self.root_url + "/v1"

    def script(self, *responses: ScriptedResponse, path: str = CHAT_PATH) -> None:
        """Queue ``responses`` for requests to ``path``, in order."""
        with self._lock:
            self._queues[path].extend(responses)

    def pending(self, path: str = CHAT_PATH) -> int:
        """Return how many scripted responses for ``path`` are still unused."""
        with self._lock:
            return len(self._queues[path])

    def bodies(self, path: str = CHAT_PATH) -> list[JSONObject]:
        """Return the JSON bodies of the requests received on ``path``, in order."""
        with self._lock:
            return [request.json() for request in self.requests if request.path == path]

    def close(self) -> None:
        """Stop serving, end pending delays, and release the port."""
        self._closing.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _next(self, request: RecordedRequest) -> ScriptedResponse:
        with self._lock:
            self.requests.append(request)
            queue = self._queues[request.path]
            if queue:
                return queue.popleft()
            self.unscripted.append(request)
        message = f"loopback server: nothing scripted for {request.method} {request.path}"
        return ScriptedResponse.json({"error": {"message": message}}, status=400)

    def _wait(self, seconds: float) -> None:
        self._closing.wait(seconds)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: LoopbackServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that timed out hangs up before a delayed answer: expected, not news.
        pass


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        recorded = RecordedRequest(
            method="POST",
            path=self.path,
            headers={key.lower(): value for key, value in self.headers.items()},
            body=self.rfile.read(length),
        )
        owner = self.server.owner
        response = owner._next(recorded)
        if response.delay:
            owner._wait(response.delay)
        self.send_response(response.status)
        for name, value in response.headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(response.body)))
        self.end_headers()
        self.wfile.write(response.body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (stdlib signature)
        pass


def chat_text(
    text: str,
    *,
    finish_reason: str = "stop",
    usage: tuple[int, int] | None = (12, 3),
    model: str = "loopback-model",
) -> ScriptedResponse:
    """Return a chat-completions reply carrying ``text``."""
    return _chat({"role": "assistant", "content": text}, finish_reason, usage, model)


def chat_tool_calls(
    calls: Sequence[tuple[str, str, str]],
    *,
    text: str | None = None,
    finish_reason: str = "tool_calls",
    usage: tuple[int, int] | None = (20, 8),
    model: str = "loopback-model",
) -> ScriptedResponse:
    """Return a chat-completions reply calling tools; ``calls`` are (id, name, arguments JSON)."""
    wire: list[JSONValue] = [
        {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
        for call_id, name, arguments in calls
    ]
    message: JSONObject = {"role": "assistant", "content": text, "tool_calls": wire}
    return _chat(message, finish_reason, usage, model)


def _chat(
    message: JSONObject, finish_reason: str, usage: tuple[int, int] | None, model: str
) -> ScriptedResponse:
    body: JSONObject = {
        "id": "chatcmpl-loopback",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
    }
    if usage is not None:
        prompt, completion = usage
        body["usage"] = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
    return ScriptedResponse.json(body)


def http_error(
    status: int,
    message: str,
    *,
    code: str | None = None,
    error_type: str = "invalid_request_error",
    headers: Mapping[str, str] | None = None,
) -> ScriptedResponse:
    """Return an OpenAI-style error answer (``{"error": {...}}``)."""
    error: JSONObject = {"message": message, "type": error_type, "param": None, "code": code}
    return ScriptedResponse.json({"error": error}, status=status, headers=headers)


def context_length_error(limit: int = 8192, requested: int = 9000) -> ScriptedResponse:
    """Return OpenAI's answer to a prompt that does not fit the context window."""
    return http_error(
        400,
        f"This model's maximum context length is {limit} tokens. However, your messages "
        f"resulted in {requested} tokens. Please reduce the length of the messages.",
        code="context_length_exceeded",
    )


def anthropic_text(
    text: str,
    *,
    stop_reason: str = "end_turn",
    usage: tuple[int, int] = (15, 4),
    model: str = "claude-loopback",
) -> ScriptedResponse:
    """Return an Anthropic Messages reply carrying ``text``."""
    return _anthropic([{"type": "text", "text": text}], stop_reason, usage, model)


def anthropic_tool_use(
    calls: Sequence[tuple[str, str, JSONObject]],
    *,
    text: str | None = None,
    usage: tuple[int, int] = (30, 9),
    model: str = "claude-loopback",
) -> ScriptedResponse:
    """Return an Anthropic Messages reply with ``tool_use`` blocks; calls are (id, name, input)."""
    blocks: list[JSONValue] = [] if text is None else [{"type": "text", "text": text}]
    blocks += [
        {"type": "tool_use", "id": call_id, "name": name, "input": arguments}
        for call_id, name, arguments in calls
    ]
    return _anthropic(blocks, "tool_use", usage, model)


def _anthropic(
    content: list[JSONValue], stop_reason: str, usage: tuple[int, int], model: str
) -> ScriptedResponse:
    body: JSONObject = {
        "id": "msg_loopback",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": usage[0], "output_tokens": usage[1]},
    }
    return ScriptedResponse.json(body)


def anthropic_error(status: int, message: str, *, error_type: str) -> ScriptedResponse:
    """Return an Anthropic-style error answer."""
    body: JSONObject = {"type": "error", "error": {"type": error_type, "message": message}}
    return ScriptedResponse.json(body, status=status)
