"""Tombstones: how a forgotten session message is replaced where it is stored.

A forgotten message keeps its place (so every index, compaction mark and history ``range``
stays true) and its role, tool-call ids and tool names (so a turn stays a well-formed turn
and a tool result still follows its call), but its content becomes ``FORGOTTEN``, tool-call
arguments become ``{}`` and unknown fields are dropped. The session store writes the
tombstone over the message's row (``sessions_sql.tombstone_rows``). The memory proxy
recognises a client's resend of a forgotten message by its tombstone's place and shape alone
(``serve.reconcile``), so nothing of the text (not even a hash) has to stay for that. This
module does no I/O.
"""

from __future__ import annotations

from reverie.core.messages import Message, ToolCall

FORGOTTEN = "[forgotten]"
"""The content of a forgotten message."""


def tombstone(message: Message) -> Message:
    """Return ``message`` with its text, call arguments and extra fields forgotten."""
    return Message(
        role=message.role,
        content=FORGOTTEN,
        tool_calls=tuple(
            ToolCall(id=c.id, name=c.name, arguments="{}") for c in message.tool_calls
        ),
        tool_call_id=message.tool_call_id,
        name=message.name,
        timestamp=message.timestamp,
    )
