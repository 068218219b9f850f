"""A streamed Responses API answer, made from the endpoint's chat-completions stream as it comes.

``ResponseEvents`` turns the endpoint's server-sent chat chunks into Responses events: the
opening ``response.created`` and ``response.in_progress``; on the first text, the message
item's ``output_item.added`` and ``content_part.added``; one ``output_text.delta`` per chunk
of text, as it arrives; at the end the message's done events, each tool call's item whole
(``responses_reply.item_events``), and ``response.completed`` (or ``incomplete``) with the
whole object. Every event carries its ``sequence_number``. The bytes are fed to a
``stream.StreamedReply``, which rebuilds the message the proxy records.

``relay`` is the generator ``LiveResponse`` sends: it records the exchange once the stream
said it finished and before ``response.completed`` is passed on (so a client holding the
whole answer finds it recorded), ends with ``response.failed`` when the endpoint stalls, and
records nothing when the client goes away mid-stream. ``LiveResponse`` closes the endpoint's
response and releases the conversation's lease however the stream ends.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Awaitable, Callable

import httpx2

from reverie.core.messages import JSONObject, Message
from reverie.serve.leases import Lease
from reverie.serve.relay import Relay
from reverie.serve.responses_reply import Answer, item_events, response_object
from reverie.serve.stream import StreamedReply


class ResponseEvents:
    """The Responses events of one streamed answer, made as its chunks arrive."""

    def __init__(self, *, response_id: str, created: int, request: JSONObject, model: str) -> None:
        self._where: JSONObject = {"response_id": response_id, "created": created}
        self._request = request
        self._model = model
        self.reply = StreamedReply()
        self._number = 0
        self._said = 0
        self._opened = False

    def start(self) -> bytes:
        """``response.created`` and ``response.in_progress``."""
        started = self._object(None)
        return self._send(
            [
                {"type": "response.created", "response": started},
                {"type": "response.in_progress", "response": started},
            ]
        )

    def feed(self, chunk: bytes) -> bytes:
        """The events for the text that ``chunk`` adds ('' for none)."""
        self.reply.feed(chunk)
        text = self.reply.message().text
        if len(text) <= self._said:
            return b""
        events = [] if self._opened else self._open()
        where = self._text_at()
        events.append(
            {
                "type": "response.output_text.delta",
                **where,
                "delta": text[self._said :],
                "logprobs": [],
            }
        )
        self._said = len(text)
        return self._send(events)

    def finish(self, message: Message) -> bytes:
        """The closing events of the answer ``message``, ending with the whole response."""
        finish = self.reply.finish_reason or "stop"
        whole = self._object(Answer(message=message, finish=finish))
        output = whole["output"]
        items = output if isinstance(output, list) else []
        events: list[JSONObject] = []
        for index, item in enumerate(items):
            if not isinstance(item, dict):
                continue
            if item["type"] == "message":
                events += self._close(item) if self._opened else item_events(item, index)
            else:
                events += item_events(item, index)
        events.append({"type": f"response.{whole['status']}", "response": whole})
        return self._send(events)

    def failed(self, message: str) -> bytes:
        """``response.failed``: the endpoint stopped before the answer was whole."""
        error: JSONObject = {"code": "server_error", "message": message}
        broken: JSONObject = {**self._object(None), "status": "failed", "error": error}
        return self._send([{"type": "response.failed", "response": broken}])

    def _object(self, answer: Answer | None) -> JSONObject:
        return response_object(
            answer,
            response_id=str(self._where["response_id"]),
            created=int(str(self._where["created"])),
            request=self._request,
            model=self._model,
        )

    def _message_id(self) -> str:
        return f"msg_{str(self._where['response_id'])[5:]}"

    def _text_at(self) -> JSONObject:
        return {"item_id": self._message_id(), "output_index": 0, "content_index": 0}

    def _open(self) -> list[JSONObject]:
        self._opened = True
        item: JSONObject = {
            "type": "message",
            "id": self._message_id(),
            "status": "in_progress",
            "role": "assistant",
            "content": [],
        }
        empty: JSONObject = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
        return [
            {"type": "response.output_item.added", "output_index": 0, "item": item},
            {"type": "response.content_part.added", **self._text_at(), "part": empty},
        ]

    def _close(self, item: JSONObject) -> list[JSONObject]:
        content = item["content"]
        part = content[0] if isinstance(content, list) and content else {}
        text = part.get("text", "") if isinstance(part, dict) else ""
        return [
            {"type": "response.output_text.done", **self._text_at(), "text": text, "logprobs": []},
            {"type": "response.content_part.done", **self._text_at(), "part": part},
            {"type": "response.output_item.done", "output_index": 0, "item": item},
        ]

    def _send(self, events: list[JSONObject]) -> bytes:
        body = b""
        for event in events:
            event["sequence_number"] = self._number
            self._number += 1
            body += (
                f"event: {event['type']}\n".encode()
                + b"data: "
                + json.dumps(event).encode()
                + b"\n\n"
            )
        return body


async def relay(
    events: ResponseEvents, answer: httpx2.Response, record: Callable[[Message], Awaitable[None]]
) -> AsyncGenerator[bytes, None]:
    """The events of the endpoint's stream ``answer``, recording the whole answer once."""
    yield events.start()
    try:
        async for chunk in answer.aiter_bytes():
            said = events.feed(chunk)
            if said:
                yield said
            if events.reply.complete:
                break
    except httpx2.TimeoutException:
        yield events.failed("the model endpoint stopped streaming")
        return
    if not events.reply.complete:
        yield events.failed("the model endpoint's stream ended before its answer did")
        return
    message = events.reply.message()
    await record(message)  # before the client sees response.completed
    yield events.finish(message)


class LiveResponse(Relay):
    """The proxy's ``Relay`` sending Responses events: the same close and lease release."""

    def __init__(
        self, stream: AsyncGenerator[bytes, None], *, answer: httpx2.Response, lease: Lease
    ) -> None:
        super().__init__(
            stream,
            answer=answer,
            lease=lease,
            headers={"content-type": "text/event-stream; charset=utf-8"},
        )
