"""What enters reverie: text made valid UTF-8, shapes and sizes bounded, times made explicit.

Every string that reaches memory (a message from the SDK or an importer, a prompt's user text,
a search query, a model's reply) passes through here before it is stored or sent, so that no
stored byte can later break a read, a prompt or the search index.

- ``valid_text`` replaces each lone UTF-16 surrogate (half an emoji from a truncated export or
  a bad decode) with U+FFFD and joins a split surrogate pair back into its character. It
  returns how many it replaced, so callers can report the count instead of hiding it. NUL,
  control characters and bidirectional marks are valid Unicode and are kept as they are (JSON
  escapes them on disk).
- ``valid_json`` does the same for every string of a JSON value, keys included, and refuses a
  value nested deeper than ``MAX_JSON_DEPTH`` (deep nesting would otherwise raise
  ``RecursionError`` while the value is written, after part of it was stored).
- ``admit`` checks one message: text made valid, nesting bounded, at most
  ``MAX_MESSAGE_CHARS`` characters in all its strings, and a timezone on its timestamp; and
  it redacts every secret in its text (``redact_message``): a session keeps what was
  said with its secrets replaced by markers, never the secret itself.

Refusals are ``InputError``s raised before anything is written; the message says what was
wrong and where. This module does no I/O.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime

from reverie.core.messages import JSONObject, JSONValue, Message, ToolCall
from reverie.errors import InputError

REPLACEMENT = "\ufffd"
MAX_JSON_DEPTH = 64
"""Deepest nesting accepted in a message's content parts or extra fields."""
MAX_MESSAGE_CHARS = 1_000_000
"""Most characters in all the strings of one message (content, tool calls, extra fields)."""
MAX_KEY_CHARS = 1_024
"""Longest session key."""
MAX_LIMIT = 1_000_000
"""Largest ``limit`` a read (search, history, log) accepts."""


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def has_surrogate_escape(line: bytes) -> bool:
    """True when a JSON line spells a surrogate as an escape (it may decode to a lone half)."""
    return _SURROGATE_ESCAPE.search(line) is not None


def valid_text(text: str) -> tuple[str, int]:
    """Return ``text`` as valid Unicode and the number of lone surrogates replaced."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        pass
    else:
        return text, 0
    # UTF-16 round trip: a surrogate pair becomes its character, a lone half becomes U+FFFD.
    fixed = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return fixed, fixed.count(REPLACEMENT) - text.count(REPLACEMENT)


def clean_text(text: str) -> str:
    """Return ``text`` as valid Unicode (lone surrogates replaced), dropping the count."""
    return valid_text(text)[0]


@dataclass(slots=True)
class _Walk:
    """Counts what a walk over one value replaced and how many characters it met."""

    where: str
    replaced: int = 0
    chars: int = 0

    def text(self, value: str) -> str:
        fixed, count = valid_text(value)
        self.replaced += count
        self.chars += len(fixed)
        return fixed

    def json(self, value: JSONValue, depth: int = 1) -> JSONValue:
        if depth > MAX_JSON_DEPTH:
            raise InputError(f"{self.where} is nested deeper than {MAX_JSON_DEPTH} levels")
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.json(item, depth + 1) for item in value]
        if isinstance(value, dict):
            return self.object(value, depth)
        if value is None or isinstance(value, bool | int | float):
            return value
        raise InputError(f"{self.where} holds a {type(value).__name__}, which is not JSON")

    def object(self, value: Mapping[str, JSONValue], depth: int = 1) -> dict[str, JSONValue]:
        if depth > MAX_JSON_DEPTH:
            raise InputError(f"{self.where} is nested deeper than {MAX_JSON_DEPTH} levels")
        return {self.text(str(k)): self.json(v, depth + 1) for k, v in value.items()}


def valid_json(value: JSONValue, *, where: str = "the value") -> tuple[JSONValue, int]:
    """Return ``value`` with every string made valid, and the count of replacements.

    Raises:
        InputError: nested deeper than ``MAX_JSON_DEPTH``, or not a JSON value.
    """
    walk = _Walk(where)
    return walk.json(value), walk.replaced


def json_text(value: JSONValue, *, where: str = "a session record") -> str:
    """``value`` as JSON text any store can keep: valid UTF-8 (a lone surrogate is U+FFFD)."""
    text = json.dumps(value, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(valid_json(value, where=where)[0], ensure_ascii=False)
    return text


@dataclass(frozen=True, slots=True, kw_only=True)
class Admitted:
    """Messages fit to store, and how many lone surrogates were replaced in them."""

    messages: tuple[Message, ...]
    replaced: int


def admit(message: Message, *, where: str = "message", redact: bool = True) -> tuple[Message, int]:
    """Return ``message`` fit to store and the count of surrogates replaced in it.

    ``redact=False`` leaves its secrets in (the raw transcript an owner opted into keeps
    that form beside the redacted one, ``reverie.storage.folder.raw_transcripts``).

    Raises:
        InputError: too deep, too large, a naive timestamp, or a value that is not JSON.
    """
    if message.timestamp is not None and (
        message.timestamp.tzinfo is None or message.timestamp.utcoffset() is None
    ):
        raise InputError(
            f"{where}: timestamp {message.timestamp.isoformat()} has no timezone; "
            "give an aware datetime (e.g. with tzinfo=UTC)"
        )
    walk = _Walk(where)
    content = message.content
    if isinstance(content, str):
        content = walk.text(content)
    elif content is not None:
        content = tuple(walk.object(part, depth=2) for part in content)
    cleaned = replace(
        message,
        content=content,
        tool_calls=tuple(_call(walk, call) for call in message.tool_calls),
        tool_call_id=None if message.tool_call_id is None else walk.text(message.tool_call_id),
        name=None if message.name is None else walk.text(message.name),
        extra=walk.object(message.extra) if message.extra else {},
    )
    if walk.chars > MAX_MESSAGE_CHARS:
        raise InputError(
            f"{where} holds {walk.chars:,} characters; the limit is {MAX_MESSAGE_CHARS:,}"
        )
    return (redact_message(cleaned) if redact else cleaned), walk.replaced


def admit_all(
    messages: Iterable[Message | Mapping[str, JSONValue]],
    *,
    now: Callable[[], datetime] | None = None,
    where: str = "message",
    redact: bool = True,
) -> Admitted:
    """Admit every message, or raise before any is returned.

    Args:
        messages: ``Message`` values or their chat-completions JSON objects.
        now: stamps a message that has no timestamp (None: leave it without one).
        where: how errors name a message (numbered from 0: ``message 3: ...``).
        redact: False keeps the secrets in (see ``admit``).

    Raises:
        InputError: a message is not valid or is refused (see ``admit``).
    """
    kept: list[Message] = []
    replaced = 0
    for number, item in enumerate(messages):
        label = f"{where} {number}"
        try:
            message = item if isinstance(item, Message) else Message.from_json(dict(item))
        except InputError as exc:
            raise InputError(f"{label}: {exc}") from exc
        cleaned, count = admit(message, where=label, redact=redact)
        if cleaned.timestamp is None and now is not None:
            cleaned = replace(cleaned, timestamp=now())
        kept.append(cleaned)
        replaced += count
    return Admitted(messages=tuple(kept), replaced=replaced)


def check_limit(limit: object, *, name: str = "limit") -> int:
    """Return ``limit`` when it is an integer from 1 to ``MAX_LIMIT``.

    Raises:
        InputError: anything else (a bool, a float, 0, a negative or a huge number).
    """
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise InputError(f"{name} must be an integer from 1 to {MAX_LIMIT:,}, got {limit!r}")
    return limit


def check_session_key(key: object) -> str:
    """Return ``key`` when it can name a session.

    Raises:
        InputError: not a non-empty string, or it holds surrogates, lone or in pairs (a key
            is an identifier: reverie refuses it rather than store it under another name;
            the two halves of a pair are not the character they would encode).
    """
    if not isinstance(key, str) or not key:
        raise InputError(f"a session key must be a non-empty string, got {key!r}")
    try:
        key.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(
            f"session key {key!r} is not valid Unicode text (a lone surrogate or a pair of them)"
        ) from None
    if len(key) > MAX_KEY_CHARS:
        raise InputError(f"a session key is at most {MAX_KEY_CHARS} characters, got {len(key)}")
    return key


def _call(walk: _Walk, call: ToolCall) -> ToolCall:
    return ToolCall(
        id=walk.text(call.id), name=walk.text(call.name), arguments=walk.text(call.arguments)
    )


def _redacted_part(part: JSONObject) -> JSONObject:
    from reverie.core.redact import redact  # noqa: PLC0415

    text = part.get("text")
    if not isinstance(text, str):
        return part
    kept: dict[str, JSONValue] = dict(part)
    kept["text"] = redact(text)
    return kept


def _redacted_call(call: ToolCall) -> ToolCall:
    from reverie.core.redact import redact  # noqa: PLC0415

    arguments = redact(call.arguments)
    return call if arguments == call.arguments else replace(call, arguments=arguments)


def redact_message(message: Message) -> Message:
    """Return ``message`` with every secret in its text and tool-call arguments redacted.

    Ids, names, roles and timestamps stay. Idempotent (``redact`` is), so comparing
    ``redact_message(sent)`` with a kept message tells whether a client resent it.
    """
    from reverie.core.redact import redact  # noqa: PLC0415 (the rules load on first use)

    content = message.content
    if isinstance(content, str):
        content = redact(content)
    elif content is not None:
        content = tuple(_redacted_part(part) for part in content)
    calls = tuple(_redacted_call(call) for call in message.tool_calls)
    if content == message.content and calls == message.tool_calls:
        return message
    return replace(message, content=content, tool_calls=calls)
