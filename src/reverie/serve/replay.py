"""A recorded answer given again: the reply to a retry of an exchange the session holds.

A client whose timeout fired before the answer came retries the same request; the proxy had
recorded the answer meanwhile (``reconcile``, rule 3). The retry gets that answer, in the
shape it asked for: one chat completion, or an event stream (a chunk with the role, text and
tool calls, a chunk with the finish reason, then ``[DONE]``). The endpoint is not asked again,
so the client and the session hold the same answer, and nothing is recorded.

The reply is marked with the ``x-reverie-replayed: true`` header; its ``id`` is
``chatcmpl-reverie-replay``. This module does no I/O of its own.
"""

from __future__ import annotations

import json

from starlette.responses import JSONResponse, Response

from reverie.core.messages import JSONObject, JSONValue, Message

REPLAY_ID = "chatcmpl-reverie-replay"
REPLAYED_HEADER = "x-reverie-replayed"


def replayed(answer: Message, *, model: str, stream: bool) -> Response:
    """The response that gives ``answer`` again, as a completion or as an event stream."""
    headers = {REPLAYED_HEADER: "true"}
    if not stream:
        return JSONResponse(completion(answer, model), headers=headers)
    return Response(events(answer, model), media_type="text/event-stream", headers=headers)


def completion(answer: Message, model: str) -> JSONObject:
    """``answer`` as a ``chat.completion`` object."""
    message: JSONObject = {"role": "assistant", "content": answer.text or None}
    if answer.tool_calls:
        message["tool_calls"] = [call.to_json() for call in answer.tool_calls]
    choice: JSONObject = {"index": 0, "message": message, "finish_reason": _finish(answer)}
    return {**_envelope(answer, model, "chat.completion"), "choices": [choice]}


def events(answer: Message, model: str) -> bytes:
    """``answer`` as the server-sent events of a streamed completion, ending with ``[DONE]``."""
    delta: JSONObject = {"role": "assistant", "content": answer.text}
    if answer.tool_calls:
        delta["tool_calls"] = [
            {"index": index, **call.to_json()} for index, call in enumerate(answer.tool_calls)
        ]
    chunks: list[JSONValue] = [
        _chunk(answer, model, delta, None),
        _chunk(answer, model, {}, _finish(answer)),
    ]
    body = b"".join(b"data: " + json.dumps(chunk).encode() + b"\n\n" for chunk in chunks)
    return body + b"data: [DONE]\n\n"


def _chunk(answer: Message, model: str, delta: JSONObject, finish: str | None) -> JSONObject:
    choice: JSONObject = {"index": 0, "delta": delta, "finish_reason": finish}
    return {**_envelope(answer, model, "chat.completion.chunk"), "choices": [choice]}


def _envelope(answer: Message, model: str, kind: str) -> JSONObject:
    created = int(answer.timestamp.timestamp()) if answer.timestamp is not None else 0
    return {"id": REPLAY_ID, "object": kind, "created": created, "model": model}


def _finish(answer: Message) -> str:
    return "tool_calls" if answer.tool_calls else "stop"
