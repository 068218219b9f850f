"""A client's chat-completions request, parsed, and the prompt memory makes of it.

``ChatCall.parse`` reads the JSON body at the edge: the principal the request names (the
OpenAI ``user`` field, whose documented meaning is the end user, else the
``X-Reverie-Principal`` header; whether the credential reaches it is ``serve.gate``'s
question), the session key (the client's own conversation id: the ``X-Reverie-Session``
header, else ``metadata.session``, else ``metadata.conversation_id``, else ``api:default``;
reverie's own ``dream:`` and ``cron:`` keys are refused; a session is one conversation of the
principal, never a way to reach another's memory), the instructions (system and developer
messages), the conversation, and the tool schemas. A malformed body is a ``BadRequestError``
naming the field (``messages[2].role``), answered with 400.

``ChatCall.retried`` is true when the client marks the request as a retry of one it sent
before (``x-stainless-retry-count`` of 1 or more, sent by the OpenAI SDKs and the others
Stainless generates).

``prepare`` (synchronous, run in a worker thread under the session's lease) applies the
reconciliation rule (``reconcile``), records the new messages that precede the final user
message (tool results, earlier turns), and asks ``MemoryEngine.prompt`` for the in-budget
prompt ending with that user message: on the session it reconciled against when it recorded
nothing (``loaded``: the session is read once per request), else read again after the record.
A retry of an exchange whose answer is recorded prepares nothing: ``Prepared.answered`` is that
answer, given again without asking the endpoint. The client's instructions are appended to
reverie's system message, so the endpoint sees one system message: memory first, the client's
after.
The final user message (text or content parts) is recorded only with the answer
(``record_answer``), so an exchange that never completes leaves it unrecorded and the client's
retry finds it new.

Refused before the endpoint is asked (400 naming the field): a body that is not JSON, holds
``NaN``/``Infinity`` or nests deeper than the parser follows (``parse_body``); a message memory
could not record (``reverie.core.inbound.admit``: over ``MAX_MESSAGE_CHARS`` characters, nested
over ``MAX_JSON_DEPTH`` levels, a timestamp without a timezone); a session key over
``MAX_KEY_CHARS`` characters; more than ``MAX_REQUEST_MESSAGES`` messages.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace

from reverie.core.inbound import MAX_JSON_DEPTH, MAX_KEY_CHARS, admit
from reverie.core.messages import JSONObject, JSONValue, Message, MessageFormatError
from reverie.core.session import is_internal
from reverie.engine.facade import MemoryEngine
from reverie.engine.owners import PRINCIPAL_HEADER
from reverie.errors import InputError
from reverie.llm.provider import ToolSchema
from reverie.prompts import AGENT_IDENTITY, PROXY_IDENTITY
from reverie.serve.reconcile import INSTRUCTION_ROLES, reconcile

DEFAULT_SESSION = "api:default"
SESSION_HEADER = "x-reverie-session"
SESSION_METADATA = ("session", "conversation_id")
"""The ``metadata`` keys a client may give its conversation id in, first found wins."""
RETRY_HEADER = "x-stainless-retry-count"
"""How many times the client already sent this request (0 on the first try)."""


MAX_REQUEST_MESSAGES = 10_000
"""Most messages one request may carry. Reconciling is linear, but recording and compacting
a first request's whole history takes the engine about 0.6 ms a message, in one worker thread
that a stop (SIGTERM) waits for: 10,000 keep that to seconds."""


class BadRequestError(ValueError):
    """The request body is not a valid chat-completions request; ``param`` says where."""

    def __init__(self, message: str, *, param: str | None = None) -> None:
        super().__init__(message)
        self.param = param


@dataclass(frozen=True, slots=True, kw_only=True)
class ChatCall:
    """What one chat-completions request asks, parsed."""

    body: JSONObject
    principal: str | None
    """The principal the request names (``user``, else the header), None when it names none."""
    session: str
    instructions: tuple[str, ...]
    conversation: tuple[Message, ...]
    tools: tuple[ToolSchema, ...]
    stream: bool
    retried: bool = False

    @classmethod
    def parse(cls, body: JSONValue, headers: Mapping[str, str]) -> ChatCall:
        """Parse a request body; raise ``BadRequestError`` saying which field is wrong."""
        if not isinstance(body, dict):
            raise BadRequestError("the request body must be a JSON object")
        raw = body.get("messages")
        if not isinstance(raw, list) or not raw:
            raise BadRequestError("'messages' must be a non-empty list", param="messages")
        if len(raw) > MAX_REQUEST_MESSAGES:
            raise BadRequestError(
                f"'messages' holds {len(raw):,} messages; one request may carry at most "
                f"{MAX_REQUEST_MESSAGES:,} (bring a longer history in with reverie ingest)",
                param="messages",
            )
        instructions: list[str] = []
        conversation: list[Message] = []
        for position, item in enumerate(raw):
            if isinstance(item, dict) and item.get("role") in INSTRUCTION_ROLES:
                instructions.append(_instruction_text(item, position))
                continue
            conversation.append(_admitted(item, position))
        return cls(
            body=body,
            principal=named_principal(body, headers),
            session=_session_key(body, headers),
            instructions=tuple(instructions),
            conversation=tuple(conversation),
            tools=_tools(body.get("tools")),
            stream=body.get("stream") is True,
            retried=is_retry(headers),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Prepared:
    """The messages to send upstream, and the user message to record with the answer.

    ``answered`` is the recorded answer of a retried exchange: give it again, record nothing.
    """

    messages: tuple[Message, ...]
    final: Message | None
    known: int
    answered: Message | None = None


def prepare(engine: MemoryEngine, call: ChatCall) -> Prepared:
    """Reconcile, record what precedes the final user message, and build the prompt."""
    session = engine.session(call.session)
    found = reconcile(
        session.messages, call.conversation, retried_at=engine.clock() if call.retried else None
    )
    if found.answered is not None:
        return Prepared(messages=(), final=None, known=found.known, answered=found.answered)
    new = list(found.new)
    final = new.pop() if new and new[-1].role == "user" else None
    if new:
        engine.record(call.session, new)
    # Nothing recorded: the prompt is built on the session just reconciled, not read again.
    loaded = None if new else session
    prompt = engine.prompt(call.session, final.text if final else None, call.tools, loaded=loaded)
    messages = _surface_identity(prompt.messages, call.tools)
    if final is not None and isinstance(final.content, tuple) and messages:
        # The prompt ends with the final message's text; the endpoint gets its parts.
        messages = (*messages[:-1], replace(final, timestamp=None))
    return Prepared(
        messages=_with_instructions(messages, call.instructions),
        final=final,
        known=found.known,
    )


def record_answer(
    engine: MemoryEngine, session: str, final: Message | None, answer: Message
) -> None:
    """Record the exchange: the final user message (if any) and the answer."""
    engine.record(session, [*([final] if final else []), answer])


def wire(messages: tuple[Message, ...]) -> list[JSONValue]:
    """The chat-completions form of ``messages`` (reverie's timestamps left out)."""
    found: list[JSONValue] = []
    for message in messages:
        obj = message.to_json()
        obj.pop("timestamp", None)
        found.append(obj)
    return found


def _surface_identity(
    messages: tuple[Message, ...], tools: tuple[ToolSchema, ...]
) -> tuple[Message, ...]:
    """The prompt with an identity that is true here: no tool the request does not carry.

    The built-in identity tells the model to use ``search_memory``; the proxy forwards only
    the client's tools, so unless the client offers one of that name, the proxy's identity
    (``prompts/proxy.md``) replaces it. A workspace's own identity is left as it is.
    """
    if any(tool.name == "search_memory" for tool in tools) or not messages:
        return messages
    system = messages[0]
    if system.role != "system" or not system.text.startswith(AGENT_IDENTITY):
        return messages
    text = PROXY_IDENTITY + system.text[len(AGENT_IDENTITY) :]
    return (replace(system, content=text), *messages[1:])


def _with_instructions(
    messages: tuple[Message, ...], instructions: tuple[str, ...]
) -> tuple[Message, ...]:
    if not instructions:
        return messages
    if messages and messages[0].role == "system":
        joined = "\n\n".join([messages[0].text, *instructions])
        return (replace(messages[0], content=joined), *messages[1:])
    return (Message(role="system", content="\n\n".join(instructions)), *messages)


def parse_body(raw: bytes) -> JSONValue:
    """The request body as JSON, refused (``BadRequestError``) before anything is asked.

    ``NaN``, ``Infinity`` and ``-Infinity`` are not JSON (Python's parser accepts them; an
    endpoint would get them forwarded): refused, naming the constant. A body nested deeper
    than the parser can follow (a 100,000-deep array) is refused as too deep, never a 500.
    """
    try:
        parsed: JSONValue = json.loads(raw, parse_constant=_no_constant)
    except RecursionError:
        raise BadRequestError(
            f"the request body is nested too deeply (messages may nest {MAX_JSON_DEPTH} levels)"
        ) from None
    except UnicodeDecodeError as exc:
        raise BadRequestError(f"the request body is not UTF-8 text: {exc.reason}") from None
    except ValueError as exc:
        if isinstance(exc, BadRequestError):
            raise
        raise BadRequestError(f"the request body is not valid JSON: {exc}") from None
    return parsed


def _no_constant(name: str) -> JSONValue:
    raise BadRequestError(f"the request body holds {name}, which is not a JSON number")


def _admitted(item: JSONValue, position: int) -> Message:
    """Message ``position`` of the request, refused now if it could not be recorded later.

    The checks of ``reverie.core.inbound.admit`` (size, nesting, a timestamp with a timezone) run
    here, before the endpoint is asked, so an exchange memory would refuse is never billed.
    """
    where = f"messages[{position}]"
    try:
        return admit(Message.from_json(item), where=where)[0]
    except InputError as exc:
        text = str(exc)
        raise BadRequestError(
            text if text.startswith(where) else f"{where}: {text}", param=where
        ) from exc


def _instruction_text(item: dict[str, JSONValue], position: int) -> str:
    try:
        return Message.from_json({**item, "role": "system"}).text
    except MessageFormatError as exc:
        raise BadRequestError(
            f"messages[{position}]: {exc}", param=f"messages[{position}]"
        ) from exc


def named_principal(body: JSONObject, headers: Mapping[str, str]) -> str | None:
    """The principal a request names: the ``user`` field, else ``X-Reverie-Principal``.

    Raises:
        BadRequestError: both are given and name different principals.
    """
    user = body.get("user")
    named = user.strip() if isinstance(user, str) and user.strip() else None
    header = headers.get(PRINCIPAL_HEADER, "").strip() or None
    if named is not None and header is not None and named != header:
        raise BadRequestError(
            "the 'user' field and the X-Reverie-Principal header name different principals",
            param="user",
        )
    return named or header


def _session_key(body: JSONObject, headers: Mapping[str, str]) -> str:
    """The client's conversation id: the header, else ``metadata``, else ``api:default``."""
    header = headers.get(SESSION_HEADER, "").strip()
    if header:
        return checked_session_key(header, SESSION_HEADER)
    return metadata_session(body)


def metadata_session(body: JSONObject) -> str:
    """The session ``metadata`` names (``SESSION_METADATA``, in order), else ``api:default``."""
    metadata = body.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise BadRequestError("'metadata' must be an object", param="metadata")
    for key in SESSION_METADATA:
        value = (metadata or {}).get(key)
        if isinstance(value, str) and value.strip():
            return checked_session_key(value.strip(), f"metadata.{key}")
    return DEFAULT_SESSION


def checked_session_key(key: str, where: str) -> str:
    """Refuse keys of reverie's own sessions, over-long keys, and text that cannot name a file.

    ``where`` names the field or header the key came from, for the error's ``param``.
    """
    if len(key) > MAX_KEY_CHARS:
        raise BadRequestError(
            f"a session key is at most {MAX_KEY_CHARS} characters, got {len(key):,}", param=where
        )
    if is_internal(key):
        raise BadRequestError(
            f"session key {key!r} is reserved for reverie's own sessions", param=where
        )
    try:
        key.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise BadRequestError(
            f"session key {key!r} is not valid Unicode text", param=where
        ) from exc
    return key


def is_retry(headers: Mapping[str, str]) -> bool:
    """Whether the client says this request is a retry (the OpenAI SDK's retry-count header)."""
    count = headers.get(RETRY_HEADER, "").strip()
    return count.isascii() and count.isdigit() and int(count) > 0


def _tools(raw: JSONValue) -> tuple[ToolSchema, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise BadRequestError("'tools' must be a list", param="tools")
    schemas = []
    for position, tool in enumerate(raw):
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise BadRequestError(
                "a tool needs a 'function' with a 'name'", param=f"tools[{position}]"
            )
        parameters = function.get("parameters")
        schemas.append(
            ToolSchema(
                name=str(function["name"]),
                description=str(function.get("description") or ""),
                parameters=parameters if isinstance(parameters, dict) else {},
            )
        )
    return tuple(schemas)
