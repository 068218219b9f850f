"""The MCP tools' arguments and results: their types, descriptions and parsing.

The SDK derives every input and output schema from ``MemoryTools``' signatures
(``reverie.mcp.tools``): the ``Annotated`` fields here carry the argument descriptions, the
``TypedDict`` results give the output schema. A malformed argument (an unknown file, a
malformed message) raises the SDK's ``ToolError`` saying what was wrong and where.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field
from typing_extensions import TypedDict  # pydantic needs it for nested types below 3.12

from reverie.core.durable import FILE_NAMES, MemoryFileName, durable_name
from reverie.core.hits import SearchHit
from reverie.core.messages import Message, MessageFormatError

DEFAULT_SESSION = "mcp:default"
"""Where ``remember`` and ``record`` write unless the client names a session."""


DurableFile = Annotated[
    str,
    Field(
        description="SOUL.md, USER.md or MEMORY.md (also accepted: SOUL, USER, MEMORY, "
        "memory/MEMORY.md)."
    ),
]
Query = Annotated[str, Field(description='What to look for: words, or a "quoted phrase".')]
Session = Annotated[
    str | None,
    Field(description="A session key such as 'tg:alice'; omitted: every session."),
]
RememberedText = Annotated[
    str, Field(min_length=2, description="Words of a remembered fact, e.g. 'Porto'.")
]
WriteSession = Annotated[
    str,
    Field(description=f"The session to add to (default {DEFAULT_SESSION!r})."),
]


class Hit(TypedDict):
    """One search result, its fields named as ``SearchHit``'s (and the CLI's ``--json``)."""

    kind: str
    snippet: str
    timestamp: str | None
    session_key: str | None
    cursor: int | None
    message_index: int | None
    role: str | None
    score: float


class SearchResult(TypedDict):
    """Search results, best first."""

    hits: list[Hit]


class Recorded(TypedDict):
    """Where added messages landed."""

    session: str
    first_index: int
    count: int
    compaction: str


class FileText(TypedDict):
    """One durable file."""

    file: str
    text: str


def parse_messages(raw: list[dict[str, Any]]) -> list[Message]:
    """Parse chat messages, saying which one is malformed and why."""
    parsed = []
    for position, obj in enumerate(raw):
        try:
            parsed.append(Message.from_json(obj))
        except MessageFormatError as exc:
            raise ToolError(f"messages[{position}]: {exc}") from exc
    return parsed


def durable_file(file: str) -> tuple[str, MemoryFileName]:
    """The file a client names (``USER.md``, ``USER``, ``memory/USER.md``): shown name, name.

    Raises:
        ToolError: it names none of the three.
    """
    name = durable_name(file)
    if name is None:
        raise ToolError(f"unknown file {file!r}: use one of {', '.join(sorted(FILE_NAMES))}")
    return next(shown for shown, known in FILE_NAMES.items() if known == name), name


def hit_result(hit: SearchHit) -> Hit:
    """One search hit as the tool returns it (its score to four places)."""
    return {
        "kind": hit.kind,
        "snippet": hit.snippet,
        "timestamp": hit.timestamp.isoformat() if hit.timestamp is not None else None,
        "session_key": hit.session_key,
        "cursor": hit.cursor,
        "message_index": hit.message_index,
        "role": hit.role,
        "score": round(hit.score, 4),
    }
