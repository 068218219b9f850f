"""Rebuild the assistant message from a streamed chat completion, without touching the bytes.

The proxy passes every byte of the endpoint's server-sent events to the client unchanged and
feeds the same bytes to a ``StreamedReply``, which parses the ``data:`` lines, joins the
content deltas of choice 0 and assembles its tool calls (by index: id and name arrive once,
arguments in pieces). ``complete`` is true once the stream said it finished (a finish
reason, or ``[DONE]``); only a complete reply is recorded. Lines that are not JSON, events of
other choices, and comments are ignored: they are the client's business, not memory's.

The one exception to "unchanged" is the endpoint's own error events: an ``event: error``
event, or a ``data:`` line whose JSON has a top-level ``error`` (what the OpenAI SDKs raise as
an ``APIError``). ``ErrorScreen`` relays the stream line by line and rewrites the data of
those events with every string redacted and its URLs shown without credentials (as a
non-streamed error body is, ``upstream.error_passthrough``): an endpoint echoing "Incorrect
API key provided: sk-..." mid-stream never hands the key to the client. Every other line goes
through byte for byte.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from reverie.core.messages import JSONValue, Message, ToolCall
from reverie.core.redact import redact, scrub_urls


@dataclass(slots=True)
class _CallParts:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class StreamedReply:
    """The assistant message a chat-completions event stream carries, built as it arrives."""

    def __init__(self) -> None:
        self._buffer = b""
        self._text: list[str] = []
        self._calls: dict[int, _CallParts] = {}
        self.finish_reason: str | None = None
        self.done = False

    @property
    def complete(self) -> bool:
        """True once the stream said it finished."""
        return self.done or self.finish_reason is not None

    def feed(self, chunk: bytes) -> None:
        """Take the next bytes of the stream (any split: lines are reassembled)."""
        self._buffer += chunk
        *lines, self._buffer = self._buffer.split(b"\n")
        for line in lines:
            self._line(line.strip())

    def message(self) -> Message:
        """The assistant message so far: its text and tool calls."""
        calls = tuple(
            ToolCall(id=parts.id, name=parts.name, arguments="".join(parts.arguments) or "{}")
            for _index, parts in sorted(self._calls.items())
        )
        text = "".join(self._text)
        return Message(
            role="assistant", content=text if text or not calls else None, tool_calls=calls
        )

    def _line(self, line: bytes) -> None:
        if not line.startswith(b"data:"):
            return
        payload = line[5:].strip()
        if payload == b"[DONE]":
            self.done = True
            return
        try:
            event: JSONValue = json.loads(payload)
        except ValueError:
            return
        if isinstance(event, dict):
            self._event(event)

    def _event(self, event: dict[str, JSONValue]) -> None:
        choices = event.get("choices")
        if not isinstance(choices, list):
            return
        for choice in choices:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta")
            if isinstance(delta, dict):
                self._delta(delta)
            reason = choice.get("finish_reason")
            if isinstance(reason, str):
                self.finish_reason = reason

    def _delta(self, delta: dict[str, JSONValue]) -> None:
        content = delta.get("content")
        if isinstance(content, str):
            self._text.append(content)
        calls = delta.get("tool_calls")
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, dict):
                self._call(call)

    def _call(self, call: dict[str, JSONValue]) -> None:
        index = call.get("index", 0)
        parts = self._calls.setdefault(index if isinstance(index, int) else 0, _CallParts())
        if isinstance(call.get("id"), str):
            parts.id = str(call["id"])
        function = call.get("function")
        if isinstance(function, dict):
            if isinstance(function.get("name"), str):
                parts.name += str(function["name"])
            if isinstance(function.get("arguments"), str):
                parts.arguments.append(str(function["arguments"]))


class ErrorScreen:
    """Event-stream bytes relayed whole lines at a time, the endpoint's error events redacted."""

    def __init__(self) -> None:
        self._buffer = b""
        self._in_error_event = False

    def feed(self, chunk: bytes) -> bytes:
        """The complete lines ``chunk`` finishes, screened (b'' while a line is still open)."""
        self._buffer += chunk
        *lines, self._buffer = self._buffer.split(b"\n")
        return b"".join(self._line(line) + b"\n" for line in lines)

    def flush(self) -> bytes:
        """What is left once the stream ended: a last line with no newline, screened."""
        rest, self._buffer = self._buffer, b""
        return self._line(rest) if rest else b""

    def _line(self, line: bytes) -> bytes:
        bare = line.strip()
        if not bare:
            self._in_error_event = False  # a blank line ends an event
            return line
        if bare.startswith(b"event:"):
            self._in_error_event = bare[6:].strip() == b"error"
            return line
        if not bare.startswith(b"data:"):
            return line
        screened = _screened(bare[5:].strip(), in_error_event=self._in_error_event)
        if screened is None:
            return line
        return b"data: " + screened + (b"\r" if line.endswith(b"\r") else b"")


def _screened(payload: bytes, *, in_error_event: bool) -> bytes | None:
    """The payload of an error event, redacted; None for a payload that is not an error."""
    if not in_error_event and b"error" not in payload:
        return None
    try:
        data: JSONValue = json.loads(payload)
    except ValueError:
        if not in_error_event:
            return None
        return _shown(payload.decode("utf-8", "replace")).encode()
    if not in_error_event and not (isinstance(data, dict) and "error" in data):
        return None
    return json.dumps(_shown_json(data)).encode()


def _shown_json(value: JSONValue) -> JSONValue:
    if isinstance(value, str):
        return _shown(value)
    if isinstance(value, list):
        return [_shown_json(item) for item in value]
    if isinstance(value, dict):
        return {key: _shown_json(item) for key, item in value.items()}
    return value


def _shown(text: str) -> str:
    return scrub_urls(redact(text))
