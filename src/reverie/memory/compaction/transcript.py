"""Rendering session messages as a transcript the summariser reads, within a character cap.

Each message becomes one block: ``[time] ROLE: text``; an assistant's tool calls are shown as
``ROLE called name(arguments)`` and a tool result as ``TOOL RESULT (name): text``. The
continuation lines of a message are indented by two spaces, so no text inside a message can
start a line that looks like a block header (a tool result holding ``USER: ...`` stays inside
its block when a raw transcript is read back). A single block longer than ``block_cap`` is cut
with a marker saying how much was left out, so one giant message can never make a request go
over budget. No I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

from reverie.core.clock import wall_clock
from reverie.core.entries import truncate
from reverie.core.messages import Message

TOOL_ARGUMENT_CAP = 600
"""Characters of a tool call's arguments shown to the summariser."""


def render_message(message: Message, *, block_cap: int) -> str:
    """Return one message as a transcript block of at most ``block_cap`` characters."""
    stamp = message.timestamp
    when = f"[{wall_clock(stamp, local=False)}] " if stamp is not None else ""
    role = message.role.upper()
    lines: list[str] = []
    text = "\n  ".join(message.text.splitlines())
    if message.role == "tool":
        label = f" ({message.name})" if message.name else ""
        lines.append(f"{when}TOOL RESULT{label}: {text}")
    elif text:
        lines.append(f"{when}{role}: {text}")
    for call in message.tool_calls:
        arguments = truncate(call.arguments, TOOL_ARGUMENT_CAP)
        lines.append(f"{when}{role} called {call.name}({arguments})")
    if not lines:
        lines.append(f"{when}{role}: (empty)")
    return truncate("\n".join(lines), block_cap)


def render(messages: Sequence[Message], *, block_cap: int) -> str:
    """Return the transcript of ``messages``, blocks separated by blank lines."""
    return "\n\n".join(render_message(message, block_cap=block_cap) for message in messages)


RAW_MARKER = "[raw transcript: the summariser failed ({reason}); kept verbatim, capped]"


def raw_fallback(messages: Sequence[Message], *, reason: str, cap: int) -> str:
    """Return the capped raw transcript that goes to history when summarising failed."""
    head = RAW_MARKER.format(reason=reason)
    return truncate(head + "\n" + render(messages, block_cap=cap), cap)
