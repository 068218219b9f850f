"""Tombstones: how a forgotten session message is replaced in its journal.

A forgotten message keeps its place (so every index, compaction mark and history ``range``
stays true) and its role, tool-call ids and tool names (so a turn stays a well-formed turn
and a tool result still follows its call), but its content becomes ``FORGOTTEN``, tool-call
arguments become ``{}`` and unknown fields are dropped. The journal is rewritten from its
replay (``JournalFile.rewrite``), so no line of the old text survives in the file. This
module does no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import replace

from reverie.messages import Message, ToolCall
from reverie.store.session_journal import Contents
from reverie.store.session_records import MessageRecord, encode, parse

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


def redactor(indices: Collection[int], *, summary: bool) -> Callable[[Contents], None]:
    """An edit for ``JournalFile.rewrite`` that tombstones ``indices`` (and the summary)."""
    wanted = frozenset(indices)

    def edit(contents: Contents) -> None:
        for index in sorted(wanted):
            if not 0 <= index < len(contents.message_lines):
                continue
            record = parse(contents.message_lines[index])
            if isinstance(record, MessageRecord):
                forgotten = replace(record, message=tombstone(record.message))
                contents.message_lines[index] = encode(forgotten)
                contents.messages[index] = forgotten.message
        if summary and contents.summary is not None:
            contents.summary = None

    return edit
