"""Reading a compaction transcript back into messages, for the model-free summariser.

Compaction renders the turns it summarises as blocks separated by blank lines::

    [2026-11-30 14:05] USER: text
    [2026-11-30 14:05] ASSISTANT called web_search({"query": "..."})
    [2026-11-30 14:05] TOOL RESULT (web_search): text

The timestamp prefix is optional on every form. Message text may itself hold blank lines, so a
block starts only at a line that looks like a block header; any other line continues the block
before it (text before the first header is ignored). A timestamp is read as a wall-clock time
and given UTC only so that the value is aware: the summariser uses just its date. No I/O.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from reverie.messages import Message, Role, ToolCall

_HEADER = re.compile(
    r"^(?:\[(?P<stamp>\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2})?)\]\s*)?"
    r"(?:(?P<role>USER|ASSISTANT|SYSTEM|TOOL):\s?(?P<text>.*)"
    r"|ASSISTANT called (?P<call>[^\s(]+)\((?P<args>.*)\)\s*"
    r"|TOOL RESULT \((?P<tool>[^)]*)\):\s?(?P<result>.*))$"
)
_ROLES: dict[str, Role] = {
    "USER": "user",
    "ASSISTANT": "assistant",
    "SYSTEM": "system",
    "TOOL": "tool",
}


def parse_transcript(transcript: str) -> list[Message]:
    """Return the messages of a rendered transcript, in order."""
    messages: list[Message] = []
    lines: list[str] = []
    current: re.Match[str] | None = None
    for line in transcript.splitlines():
        header = _HEADER.match(line)
        if header is None:
            lines.append(line)
            continue
        if current is not None:
            messages.append(_message(current, lines))
        current, lines = header, []
    if current is not None:
        messages.append(_message(current, lines))
    return messages


def _message(header: re.Match[str], more: list[str]) -> Message:
    stamp = _stamp(header["stamp"])
    if header["call"] is not None:
        call = ToolCall(id=f"call-{header['call']}", name=header["call"], arguments=header["args"])
        return Message(role="assistant", tool_calls=(call,), timestamp=stamp)
    if header["tool"] is not None:
        text = "\n".join([header["result"], *more]).strip()
        return Message(role="tool", name=header["tool"], content=text, timestamp=stamp)
    text = "\n".join([header["text"], *more]).strip()
    return Message(role=_ROLES[header["role"]], content=text, timestamp=stamp)


def _stamp(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        return datetime.fromisoformat(value).replace(tzinfo=UTC)
    except ValueError:
        return None
