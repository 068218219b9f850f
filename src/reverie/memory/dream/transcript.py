"""Keeping a dream run's conversation as an internal session, for people to inspect.

``keep_transcript`` stores the messages of one run (instructions, prompt, every reply and tool
result) as the session ``dream:<UTC time>`` and deletes older ``dream:`` sessions beyond the
last ``keep`` (10). Keys sort by time, so "older" is "smaller key". Sessions whose key starts
with ``dream:`` are internal: prompts of other sessions never carry them (invariant 10).
This module writes only through the sessions store (``SessionsPort``, a folder's or a
database's); it never touches history or the durable files.
The kept messages are redacted (``reverie.core.redact``): the transcript is derived, not what the
user typed, so a secret the model tried to write (or a file held before) is not kept in it.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from reverie.core.clock import require_aware
from reverie.core.messages import Message
from reverie.core.redact import redact

if TYPE_CHECKING:
    from collections.abc import Sequence

    from reverie.storage.ports import SessionsPort

TRANSCRIPT_PREFIX = "dream:"
KEEP_TRANSCRIPTS = 10


def transcript_key(moment: datetime) -> str:
    """Return the session key for a run at ``moment``: ``dream:YYYY-MM-DDTHH:MM:SSZ``."""
    return TRANSCRIPT_PREFIX + require_aware(moment).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def keep_transcript(
    sessions: SessionsPort,
    messages: Sequence[Message],
    *,
    moment: datetime,
    keep: int = KEEP_TRANSCRIPTS,
) -> str:
    """Store ``messages`` as a new ``dream:`` session and prune the old ones; return its key.

    Raises:
        SessionError, StorageError: the session could not be written.
    """
    base = transcript_key(moment)
    key, suffix = base, 1
    while sessions.exists(key):  # two runs within one second: keep both
        suffix += 1
        key = f"{base}-{suffix}"
    sessions.append_many(key, [_redacted(message) for message in messages])
    prune_transcripts(sessions, keep=keep)
    return key


def prune_transcripts(sessions: SessionsPort, *, keep: int = KEEP_TRANSCRIPTS) -> list[str]:
    """Delete ``dream:`` sessions beyond the newest ``keep``; return the deleted keys."""
    keys = sorted(info.key for info in sessions.list() if info.key.startswith(TRANSCRIPT_PREFIX))
    old = keys[: max(0, len(keys) - keep)]
    for key in old:
        sessions.delete(key)
    return old


def _redacted(message: Message) -> Message:
    calls = tuple(replace(call, arguments=redact(call.arguments)) for call in message.tool_calls)
    content = redact(message.content) if isinstance(message.content, str) else message.content
    return replace(message, content=content, tool_calls=calls)
