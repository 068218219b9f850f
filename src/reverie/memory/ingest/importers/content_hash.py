"""Content hashes of messages, so importing the same data twice adds nothing.

``message_hash`` is the SHA-256 of a canonical JSON form of what a message says: role, text
(string content and text parts hash alike), tool calls (id, name, arguments), tool call id,
name, and the timestamp as a UTC instant (so the same moment written in two zones hashes
alike; a naive time is hashed as written). Fields a store may add or drop (``extra``) are left
out. ``new_messages`` compares an incoming conversation with what a session already holds and
returns only what is new, counting repeats, so two identical "ok" messages stay two.
No I/O.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections import Counter
from collections.abc import Sequence
from datetime import UTC

from reverie.core.inbound import clean_text
from reverie.core.messages import Message


def message_hash(message: Message) -> str:
    """Return the hex SHA-256 of the message's canonical content."""
    moment = message.timestamp
    if moment is not None and moment.utcoffset() is not None:
        # Year 1 east of UTC (or 9999 west of it) has no UTC form: it is hashed as written.
        with contextlib.suppress(OverflowError):
            moment = moment.astimezone(UTC)
    canonical = [
        message.role,
        message.text,
        [[call.id, call.name, call.arguments] for call in message.tool_calls],
        message.tool_call_id,
        message.name,
        None if moment is None else moment.isoformat(),
    ]
    # Text as it is stored (lone surrogates as U+FFFD), so a stored message matches its source.
    text = clean_text(json.dumps(canonical, ensure_ascii=False, separators=(",", ":")))
    encoded = text.encode("utf-8")
    return hashlib.sha256(encoded).hexdigest()


def new_messages(existing: Sequence[Message], incoming: Sequence[Message]) -> tuple[Message, ...]:
    """Return the messages of ``incoming`` not already in ``existing``, in incoming order.

    Each existing message cancels one incoming message with the same hash, so re-importing a
    conversation adds nothing, and importing it after it grew adds only the new messages.
    """
    unmatched = Counter(message_hash(message) for message in existing)
    fresh: list[Message] = []
    for message in incoming:
        digest = message_hash(message)
        if unmatched[digest] > 0:
            unmatched[digest] -= 1
        else:
            fresh.append(message)
    return tuple(fresh)
