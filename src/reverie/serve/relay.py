"""A streamed answer to the client: the endpoint's events relayed, or made from its JSON.

``Relay`` is the streaming response of one exchange: it sends what its generator yields, then,
however the stream ends (finished, failed, cut off by the client), closes the endpoint's
response and releases the session's lease.

``error_event`` is the server-sent event the OpenAI SDKs raise as an ``APIError``: the proxy
sends it when the endpoint dies or stalls mid-stream, so a streamed client never sees its
stream simply stop. ``as_events`` turns a whole (non-streamed) chat completion into the events
a ``stream: true`` client expects (some endpoints ignore ``stream``): one chunk with the
message's text and tool calls, one with the finish reason, then ``[DONE]``. ``NOT_RECORDED``
is an SSE comment (clients skip it) saying the exchange was not kept.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Awaitable, Callable

import anyio
import httpx2
from starlette.responses import Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from reverie.core.messages import JSONObject, JSONValue
from reverie.serve.leases import Lease, SessionLeases

DONE = b"data: [DONE]\n\n"
NOT_RECORDED = b": reverie: this exchange was not recorded (see the serve log)\n\n"


def error_event(body: JSONObject) -> bytes:
    """One ``data:`` event carrying an OpenAI-shaped error body."""
    return b"data: " + json.dumps(body).encode() + b"\n\n"


def as_events(completion: JSONObject) -> bytes:
    """The chunk events of a whole chat completion, ending with ``[DONE]``.

    Raises:
        ValueError: ``completion`` has no choice 0 with a message.
    """
    choices = completion.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ValueError("the completion has no choices")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise ValueError("the completion's choice 0 has no message")
    delta: JSONObject = {"role": "assistant", "content": message.get("content")}
    calls = message.get("tool_calls")
    if isinstance(calls, list) and calls:
        delta["tool_calls"] = [
            {**call, "index": index} if isinstance(call, dict) else call
            for index, call in enumerate(calls)
        ]
    finish = choices[0].get("finish_reason") or "stop"
    head: JSONObject = {
        "id": completion.get("id", "chatcmpl-reverie"),
        "object": "chat.completion.chunk",
        "created": completion.get("created", 0),
        "model": completion.get("model", ""),
    }
    first: JSONValue = {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
    last: JSONValue = {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}
    return b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in (first, last))


class Relay(StreamingResponse):
    """A streamed answer that releases the session's lease however the stream ends.

    It also closes the endpoint's response, even for a relay cancelled before it started.
    """

    def __init__(
        self,
        relay: AsyncGenerator[bytes, None],
        *,
        answer: httpx2.Response,
        lease: Lease,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(
            relay,
            status_code=answer.status_code,
            headers=headers if headers is not None else stream_headers(answer),
        )
        self._relay = relay
        self._answer = answer
        self._lease = lease

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Send the stream, then clean up whether it finished, failed or was cut off."""
        try:
            await super().__call__(scope, receive, send)
        finally:
            with anyio.CancelScope(shield=True):
                await self._relay.aclose()
                await self._answer.aclose()
            self._lease.release()


async def under_lease(
    leases: SessionLeases,
    principal: str,
    session: str,
    exchange: Callable[[Lease], Awaitable[Response]],
) -> Response:
    """Run one exchange holding its conversation's lease.

    The lease is released when the exchange returns, unless it returns a ``Relay``: a
    streamed answer releases it itself, once the stream has ended however it ended.
    """
    lease = await leases.acquire(principal, session)
    try:
        response = await exchange(lease)
    except BaseException:
        lease.release()
        raise
    if not isinstance(response, Relay):
        lease.release()
    return response


def stream_headers(answer: httpx2.Response) -> dict[str, str]:
    """The endpoint's headers a relayed stream keeps."""
    keep = ("content-type", "cache-control", "x-request-id", "openai-processing-ms")
    return {name: answer.headers[name] for name in keep if name in answer.headers}


def is_event_stream(answer: httpx2.Response) -> bool:
    """True when the endpoint answered with server-sent events."""
    return answer.headers.get("content-type", "").startswith("text/event-stream")
