"""The OpenAI-compatible memory proxy: ``POST /v1/chat/completions`` and ``GET /v1/models``.

Whose memory: the request's grant (``auth.BearerGuard``) and the principal it names (``user``
or ``X-Reverie-Principal``) go through ``gate.Gate.admit``; the exchange then uses only that
principal's engine, lent by the server's one ``owners.EnginePool`` for each engine call (so a
slow endpoint holds no engine). Refusals: 401 (no live token, in the guard), 403 (a principal
token naming another principal, an app token naming none), 404 (an unknown principal the
server does not make). None of them names anything of another principal.

One exchange, under the conversation's lease (``leases``, keyed by principal and session):
parse the request (``chat_request``), prepare the prompt in a worker thread (reconcile, record
earlier new messages, assemble with memory), forward the client's body with only ``messages``
replaced (and ``model`` filled in when missing) to the endpoint (``upstream``), return its
answer unchanged in shape, and record the final user message with the answer. Tool calls pass
through: the answer's tool calls are recorded, the client runs them, and its next request
brings the results, which reconcile as new.
A client's retry of an exchange whose answer was recorded (its timeout fired first) gets
the recorded answer again (``replay``), and the endpoint is not asked.

Streaming: the endpoint's bytes are passed on as they arrive, whole lines at a time, its own
error events redacted (``stream.ErrorScreen``), and fed to a ``StreamedReply``;
the exchange is recorded only once the stream said it finished, and before the chunk carrying
``[DONE]`` is passed on, so a client holding the whole answer finds it recorded. A client
that disconnects mid-stream cancels the relay: the upstream response is closed and nothing of
the exchange is recorded, so the session is as it was before the request (messages recorded
while preparing, such as tool results, were complete and stay).

An endpoint that answers ``stream: true`` with a whole JSON completion gets its answer
converted to events (``relay.as_events``); an answer that is neither is a 502. An endpoint that
breaks off or stalls mid-stream: the client gets an OpenAI-shaped error event
(``relay.error_event``) before the stream ends, the log one line, memory nothing of the
exchange. An exchange memory refuses to record (an answer over the size limit) is said so:
``X-Reverie-Recorded: no`` on a whole answer, an SSE comment in a stream (see ``_record``).

Errors are OpenAI-shaped (``upstream.error_body``): 400 for a malformed request or one memory
could not record (``chat_request``: refused before the endpoint is asked), 403/404 as above,
the endpoint's own status and body for its HTTP errors (redacted, ``upstream.shown``), 502/504
when it cannot be reached, breaks off or times out, 503 when no chat model is configured, 500
when memory itself fails.

Engine calls are synchronous: each runs in one of the proxy's own worker threads (a
``CapacityLimiter`` of ``threads``, not anyio's default one shared with the bearer check and
MCP), so a slow endpoint or a compaction in one session never blocks another session's
exchange.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from typing import TypeVar

import anyio
import anyio.to_thread
import httpx2
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import Scope

from reverie.core.messages import JSONObject, JSONValue, Message, MessageFormatError
from reverie.engine.facade import MemoryEngine
from reverie.engine.owners import EnginePool
from reverie.errors import AccessError, InputError, ReverieError, UnknownPrincipalError
from reverie.serve.auth import scope_grant
from reverie.serve.chat_request import (
    BadRequestError,
    ChatCall,
    Prepared,
    parse_body,
    prepare,
    record_answer,
    wire,
)
from reverie.serve.gate import Admitted, Gate
from reverie.serve.leases import Lease, SessionLeases
from reverie.serve.relay import (
    DONE,
    NOT_RECORDED,
    Relay,
    as_events,
    error_event,
    is_event_stream,
    under_lease,
)
from reverie.serve.replay import replayed
from reverie.serve.stream import ErrorScreen, StreamedReply
from reverie.serve.upstream import Upstream, UpstreamError, error_body, error_passthrough
from reverie.serve.workers import DEFAULT_THREADS, EngineWorkers

logger = logging.getLogger(__name__)


def error_response(status: int, body: JSONObject) -> JSONResponse:
    """An OpenAI-style error answer."""
    return JSONResponse(body, status_code=status)


T = TypeVar("T")

"""Worker threads of the proxy's engine calls (``reverie serve --threads``)."""
RECORDED_HEADER = "x-reverie-recorded"
"""Set to ``no`` on a whole answer whose exchange memory did not record."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Turn:
    """One exchange being run: the request, whose memory it uses, the prepared prompt."""

    call: ChatCall
    admitted: Admitted
    prepared: Prepared


class Proxy:
    """The two OpenAI routes over one engine pool and one endpoint.

    ``threads`` bounds the worker threads the proxy's engine calls use (``workers``, shared
    with the Responses route: see ``reverie.serve.workers``).
    """

    def __init__(
        self,
        pool: EnginePool,
        upstream: Upstream | None,
        gate: Gate,
        *,
        exchanged: Callable[[str], None] = lambda _principal: None,
        threads: int = DEFAULT_THREADS,
    ) -> None:
        self._upstream = upstream
        self._gate = gate
        self._exchanged = exchanged
        self.workers = EngineWorkers(pool, threads=threads)
        self.leases = SessionLeases()

    async def models(self, _request: Request) -> Response:
        """``GET /v1/models``: the configured chat model."""
        model = self._upstream.model if self._upstream is not None else ""
        data: list[JSONValue] = (
            [{"id": model, "object": "model", "created": 0, "owned_by": "reverie"}] if model else []
        )
        return JSONResponse({"object": "list", "data": data})

    async def chat_completions(self, request: Request) -> Response:
        """``POST /v1/chat/completions``: one exchange with the principal's memory."""
        if self._upstream is None:
            return error_response(503, error_body(NO_ENDPOINT, "server_error", code="no_model"))
        try:
            call = ChatCall.parse(parse_body(await request.body()), request.headers)
        except ValueError as exc:
            param = exc.param if isinstance(exc, BadRequestError) else None
            return error_response(400, error_body(str(exc), "invalid_request_error", param=param))
        admitted = await admit(self._gate, request.scope, call.principal)
        if isinstance(admitted, Response):
            return admitted
        upstream = self._upstream
        return await under_lease(
            self.leases,
            admitted.principal,
            call.session,
            lambda lease: self._exchange(call, admitted, upstream, lease),
        )

    async def _in_thread(self, admitted: Admitted, job: Callable[[MemoryEngine], T]) -> T:
        """Run ``job`` on the principal's engine in one of the proxy's own worker threads."""
        return await self.workers.run(admitted, job)

    async def _exchange(
        self, call: ChatCall, admitted: Admitted, upstream: Upstream, lease: Lease
    ) -> Response:
        try:
            prepared = await self._in_thread(admitted, lambda engine: prepare(engine, call))
        except ReverieError as exc:
            logger.warning("memory failed for session %s: %s", call.session, exc)
            return error_response(500, error_body(f"memory: {exc}", "server_error", code="memory"))
        if prepared.answered is not None:  # a retry of an exchange already recorded
            model = call.body.get("model")
            model = model if isinstance(model, str) and model else upstream.model
            return replayed(prepared.answered, model=model, stream=call.stream)
        turn = Turn(call=call, admitted=admitted, prepared=prepared)
        body = {**call.body, "messages": wire(prepared.messages)}
        body.setdefault("model", upstream.model)
        try:
            answer = await upstream.send(body)
        except UpstreamError as exc:
            logger.warning("session %s: %s", call.session, exc)
            return error_response(exc.status, exc.body())
        if answer.status_code >= 400:
            return await _failed(answer)
        if call.stream and is_event_stream(answer):
            return Relay(self._relay(turn, answer, upstream), answer=answer, lease=lease)
        return await self._whole(turn, answer, upstream)

    async def _whole(self, turn: Turn, answer: httpx2.Response, upstream: Upstream) -> Response:
        """A whole answer: returned as it is, or as events to a ``stream: true`` client."""
        try:
            content = await answer.aread()
        except httpx2.HTTPError as exc:
            failed = upstream.broke_off(exc)
            logger.warning("session %s: %s", turn.call.session, failed)
            return error_response(failed.status, failed.body())
        finally:
            await answer.aclose()
        events = _events(content) if turn.call.stream else None
        if turn.call.stream and events is None:
            failed = upstream.not_a_stream()
            logger.warning("session %s: %s", turn.call.session, failed)
            return error_response(failed.status, failed.body())
        message = _answer_message(content)
        recorded = message is not None and await self._record(turn, message)
        if events is not None:
            tail = DONE if recorded else NOT_RECORDED + DONE
            return Response(events + tail, media_type="text/event-stream")
        media = answer.headers.get("content-type", "application/json")
        response = Response(content, status_code=answer.status_code, media_type=media)
        if not recorded:
            response.headers[RECORDED_HEADER] = "no"
        return response

    async def _relay(
        self, turn: Turn, answer: httpx2.Response, upstream: Upstream
    ) -> AsyncGenerator[bytes, None]:
        reply, screen = StreamedReply(), ErrorScreen()
        recorded = False
        try:
            async for chunk in answer.aiter_bytes():  # decoded: content-encoding is not passed on
                reply.feed(chunk)
                if reply.done and not recorded:
                    # Recorded before the client sees [DONE]: a client that has the whole
                    # answer never finds the session without it.
                    recorded = True
                    if not await self._record(turn, reply.message()):
                        yield NOT_RECORDED
                if relayed := screen.feed(chunk):
                    yield relayed
        except httpx2.HTTPError as exc:
            failed = upstream.broke_off(exc)
            logger.warning("session %s: %s", turn.call.session, failed)
            yield screen.flush() + error_event(failed.body())
            return
        if rest := screen.flush():
            yield rest
        if reply.complete and not recorded:  # a stream that ended without [DONE]
            await self._record(turn, reply.message())
        elif not reply.complete:
            failed = upstream.broke_off(None)
            logger.warning("session %s: %s", turn.call.session, failed)
            yield error_event(failed.body())

    async def _record(self, turn: Turn, message: Message) -> bool:
        """Record the exchange; False (said in the log) when memory refused or failed.

        An answer memory refuses (over ``MAX_MESSAGE_CHARS`` characters) is not recorded,
        and neither is the user message it answers: the client has the answer whole, and
        memory keeps an exchange whole or not at all (a cut answer would later be replayed
        to the model as what it said). The client is told by the ``X-Reverie-Recorded: no``
        header (a whole answer) or an SSE comment before ``[DONE]`` (a stream).
        """
        session, final = turn.call.session, turn.prepared.final
        try:
            await self._in_thread(
                turn.admitted, lambda engine: record_answer(engine, session, final, message)
            )
        except ReverieError as exc:  # the client has its answer; say so in the log
            logger.warning("the exchange in session %s was not recorded: %s", session, exc)
            return False
        self._exchanged(turn.admitted.principal)
        return True


async def admit(gate: Gate, scope: Scope, named: str | None) -> Admitted | Response:
    """The principal the request reaches, or the OpenAI-shaped refusal (403, 404, 400)."""
    try:
        return await anyio.to_thread.run_sync(gate.admit, scope_grant(scope), named)
    except UnknownPrincipalError as exc:
        body = error_body(str(exc), "invalid_request_error", code="unknown_principal")
        return error_response(404, body)
    except AccessError as exc:
        body = error_body(str(exc), "permission_error", code="principal_not_allowed")
        return error_response(403, body)
    except InputError as exc:
        return error_response(400, error_body(str(exc), "invalid_request_error", param="user"))


NO_ENDPOINT = (
    "no chat model is configured for reverie serve: set REVERIE_MODEL (and REVERIE_BASE_URL, "
    "REVERIE_API_KEY) or [model] in reverie.toml"
)


def _answer_message(content: bytes) -> Message | None:
    """The assistant message of choice 0 of a chat completion, or None when there is none.

    Only its text and tool calls are kept: output-only fields (``refusal``, ``annotations``,
    ``reasoning_content``, ...) would be replayed in later prompts, and some endpoints refuse
    them as input.
    """
    try:
        parsed = json.loads(content)
        message = parsed["choices"][0]["message"]
        found = Message.from_json({**message, "role": "assistant"})
        return Message(role="assistant", content=found.content, tool_calls=found.tool_calls)
    except (ValueError, KeyError, IndexError, TypeError, MessageFormatError):
        logger.warning("the model endpoint's answer has no message to record")
        return None


async def _failed(answer: httpx2.Response) -> Response:
    """The endpoint's HTTP error, passed on redacted (with its ``retry-after``)."""
    try:
        content = await answer.aread()
    except httpx2.HTTPError:
        content = b""
    finally:
        await answer.aclose()
    failed = error_response(answer.status_code, error_passthrough(answer.status_code, content))
    if "retry-after" in answer.headers:  # a rate limit says when to come back
        failed.headers["retry-after"] = answer.headers["retry-after"]
    return failed


def _events(content: bytes) -> bytes | None:
    """A whole completion as stream events, or None when it is not one."""
    try:
        parsed = json.loads(content)
        return as_events(parsed) if isinstance(parsed, dict) else None
    except ValueError:
        return None
