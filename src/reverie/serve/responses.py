"""``POST /v1/responses``: the Responses API over the proxy's one exchange path.

A Responses request is parsed into the Chat Completions path's ``ChatCall``
(``responses_request``), so it is admitted (``proxy.admit``: the credential decides the
principal), leased (the proxy's own ``SessionLeases``: a chat and a response on one session
never interleave), prepared (``chat_request.prepare``: reconcile, record earlier new
messages, assemble with memory) and recorded (``record_answer``) exactly as a chat exchange:
every message once (DESIGN.md invariant 14). The endpoint speaks chat completions: it is
sent the prepared messages, and its answer becomes a ``response`` object
(``responses_reply``); for ``stream: true`` the endpoint streams and its chunks become the
Responses events as they arrive (``responses_stream``: recorded before
``response.completed``, nothing recorded when the client goes away, the lease released
however the stream ends). A retry of an exchange already answered gets the recorded answer,
without asking the endpoint.

Chaining: each response's id is kept with its session in ``ResponseIds``, a bounded map
keyed by (principal, id), so ``previous_response_id`` continues that session for the same
principal only (another principal's id is unknown to it: 400). The map lives in the server's
memory (``capacity`` ids, oldest forgotten first): after a restart a client names its
session with ``conversation`` or ``X-Reverie-Session``, which need no map.

Errors are OpenAI-shaped: 400 for a malformed body (``param`` names the field), 403/404 from
the gate, the endpoint's status and body, 502/504, 503 without a model, 500 when memory fails.
"""

from __future__ import annotations

import json
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx2
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from reverie.core.messages import JSONObject, Message, MessageFormatError
from reverie.errors import ReverieError
from reverie.serve.chat_request import (
    BadRequestError,
    ChatCall,
    Prepared,
    named_principal,
    prepare,
    record_answer,
    wire,
)
from reverie.serve.gate import Admitted, Gate
from reverie.serve.leases import Lease, SessionLeases
from reverie.serve.proxy import NO_ENDPOINT, admit, error_response
from reverie.serve.relay import under_lease
from reverie.serve.responses_reply import Answer, answer_of, events, response_object
from reverie.serve.responses_request import parse_responses
from reverie.serve.responses_stream import LiveResponse, ResponseEvents, relay
from reverie.serve.upstream import Upstream, UpstreamError, error_body, error_passthrough
from reverie.serve.workers import EngineWorkers

logger = logging.getLogger(__name__)
ID_CAPACITY = 10_000


@dataclass(frozen=True, slots=True, kw_only=True)
class Exchange:
    """One Responses exchange being run: the request, whose memory, the conversation's lease."""

    call: ChatCall
    body: JSONObject
    admitted: Admitted
    lease: Lease


class ResponseIds:
    """Response id -> session, per principal, the newest ``capacity`` ids."""

    def __init__(self, capacity: int = ID_CAPACITY) -> None:
        self.capacity = capacity
        self._ids: OrderedDict[tuple[str, str], str] = OrderedDict()

    def keep(self, principal: str, response_id: str, session: str) -> None:
        """Remember that ``response_id`` of ``principal`` belongs to ``session``."""
        self._ids[(principal, response_id)] = session
        while len(self._ids) > self.capacity:
            self._ids.popitem(last=False)

    def session(self, principal: str, response_id: str) -> str | None:
        """The session of ``principal``'s response ``response_id`` (None: unknown)."""
        return self._ids.get((principal, response_id))


class ResponsesRoute:
    """The ``/v1/responses`` endpoint, sharing the proxy's leases."""

    def __init__(
        self,
        workers: EngineWorkers,
        upstream: Upstream | None,
        gate: Gate,
        *,
        leases: SessionLeases,
        exchanged: Callable[[str], None] = lambda _principal: None,
    ) -> None:
        self._workers = workers
        self._upstream = upstream
        self._gate = gate
        self._leases = leases
        self._exchanged = exchanged
        self.ids = ResponseIds()

    async def create(self, request: Request) -> Response:
        """One exchange with the principal's memory, answered as a Responses API response."""
        if self._upstream is None:
            return error_response(503, error_body(NO_ENDPOINT, "server_error", code="no_model"))
        try:
            body = json.loads(await request.body())
        except ValueError as exc:
            return _bad(BadRequestError(f"the body is not JSON: {exc}"))
        try:
            named = named_principal(body, request.headers) if isinstance(body, dict) else None
        except BadRequestError as exc:
            return _bad(exc)
        admitted = await admit(self._gate, request.scope, named)
        if isinstance(admitted, Response):
            return admitted
        try:
            call = parse_responses(
                body, request.headers, lambda rid: self.ids.session(admitted.principal, rid)
            )
        except BadRequestError as exc:
            return _bad(exc)
        upstream = self._upstream
        return await under_lease(
            self._leases,
            admitted.principal,
            call.session,
            lambda lease: self._exchange(
                Exchange(call=call, body=body, admitted=admitted, lease=lease), upstream
            ),
        )

    async def _exchange(self, turn: Exchange, upstream: Upstream) -> Response:
        call = turn.call
        try:
            prepared: Prepared = await self._workers.run(
                turn.admitted, lambda engine: prepare(engine, call)
            )
        except ReverieError as exc:
            logger.warning("memory failed for session %s: %s", call.session, exc)
            return error_response(500, error_body(f"memory: {exc}", "server_error", code="memory"))
        named = call.body.get("model")
        model = named if isinstance(named, str) and named else upstream.model
        response_id = "resp_" + secrets.token_hex(16)
        self.ids.keep(turn.admitted.principal, response_id, call.session)
        if prepared.answered is not None:  # a retry of an exchange already recorded
            return _reply(
                Answer(message=prepared.answered), response_id, turn.body, model, stream=call.stream
            )
        chat: JSONObject = {**call.body, "model": model, "messages": wire(prepared.messages)}
        if call.stream:
            return await self._live(turn, prepared, chat, upstream, response_id)
        asked = await self._ask(upstream, chat)
        if isinstance(asked, Response):
            return asked
        await self._record(turn, prepared.final, asked.message)
        return _reply(asked, response_id, turn.body, model, stream=False)

    async def _live(
        self,
        turn: Exchange,
        prepared: Prepared,
        chat: JSONObject,
        upstream: Upstream,
        response_id: str,
    ) -> Response:
        try:
            answer = await upstream.send({**chat, "stream": True})
        except UpstreamError as exc:
            return error_response(exc.status, exc.body())
        if answer.status_code >= 400:
            try:
                content = await answer.aread()
            except httpx2.HTTPError:
                content = b""
            finally:
                await answer.aclose()
            return error_response(
                answer.status_code, error_passthrough(answer.status_code, content)
            )
        events = ResponseEvents(
            response_id=response_id,
            created=int(time.time()),
            request=turn.body,
            model=str(chat["model"]),
        )

        async def record(message: Message) -> None:
            await self._record(turn, prepared.final, message)

        return LiveResponse(relay(events, answer, record), answer=answer, lease=turn.lease)

    async def _ask(self, upstream: Upstream, chat: JSONObject) -> Answer | Response:
        try:
            reply = await upstream.send(chat)
        except UpstreamError as exc:
            return error_response(exc.status, exc.body())
        try:
            content = await reply.aread()
        except httpx2.TimeoutException:
            return error_response(504, upstream.timed_out().body())
        finally:
            await reply.aclose()
        if reply.status_code >= 400:
            return error_response(reply.status_code, error_passthrough(reply.status_code, content))
        try:
            completion: Any = json.loads(content)
            found = Message.from_json({**completion["choices"][0]["message"], "role": "assistant"})
        except (ValueError, KeyError, IndexError, TypeError, MessageFormatError):
            text = "the model endpoint's answer has no message"
            return error_response(502, error_body(text, "server_error", code="upstream_answer"))
        message = Message(role="assistant", content=found.content, tool_calls=found.tool_calls)
        return answer_of(completion, message)

    async def _record(self, turn: Exchange, final: Message | None, message: Message) -> None:
        session = turn.call.session
        try:
            await self._workers.run(
                turn.admitted, lambda engine: record_answer(engine, session, final, message)
            )
        except ReverieError as exc:  # the client has its answer; say so in the log
            logger.warning("could not record the answer in session %s: %s", session, exc)
            return
        self._exchanged(turn.admitted.principal)


def _reply(
    answer: Answer, response_id: str, body: JSONObject, model: str, *, stream: bool
) -> Response:
    created = int(time.time())
    whole = response_object(
        answer, response_id=response_id, created=created, request=body, model=model
    )
    if not stream:
        return JSONResponse(whole)
    started = response_object(
        None, response_id=response_id, created=created, request=body, model=model
    )
    return Response(events(whole, started), media_type="text/event-stream")


def _bad(exc: BadRequestError) -> Response:
    return error_response(400, error_body(str(exc), "invalid_request_error", param=exc.param))
