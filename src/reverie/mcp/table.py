"""The MCP tool table: each tool's name, title, description and hints, and its errors.

``TOOL_TABLE`` names, titles, describes and annotates the tools of ``reverie.mcp.tools``;
``build_server`` registers every row. ``forget`` is the one tool marked
``destructive_hint=True`` (clients ask the person before calling it).

Every registered tool runs inside ``tool_errors``, which turns any ``ReverieError`` (no model
configured, a busy lock, a refusal on a database workspace...) into a ``ToolError`` carrying
reverie's own message: the SDK would otherwise report it as a crash, and the client would read
only "Error executing tool NAME". Anything else stays a crash (its text stays on the server).
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import ParamSpec, TypeVar

from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

from reverie.errors import ReverieError

P = ParamSpec("P")
R = TypeVar("R")


def tool_errors(tool: Callable[P, R]) -> Callable[P, R]:
    """``tool``, reporting a ``ReverieError`` to the client as a ``ToolError`` with its message."""

    @functools.wraps(tool)
    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return tool(*args, **kwargs)
        except ReverieError as exc:
            raise ToolError(str(exc)) from exc

    return call


def async_tool_errors(tool: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """The asynchronous twin of ``tool_errors``."""

    @functools.wraps(tool)
    async def call(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await tool(*args, **kwargs)
        except ReverieError as exc:
            raise ToolError(str(exc)) from exc

    return call


READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
ADDS = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)
CURATES = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=True
)
"""Dream rewrites the durable files, but every change is a git commit that restore undoes."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolSpec:
    """One row of the tool table: the tool's name, title, description and hints."""

    name: str
    title: str
    description: str
    annotations: ToolAnnotations

    def bind(self, tools: object) -> Callable[..., object]:
        """The method of ``tools`` that implements this tool, reporting reverie's errors."""
        found = getattr(tools, self.name)
        assert callable(found)
        return tool_errors(found)


TOOL_TABLE: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="search_memory",
        title="Search memory",
        description="Search everything remembered (history entries and every session message, "
        "compacted ones too), best match first. Each hit gives its source (history entry "
        "cursor, or session and message index), its time and a snippet with the matched words "
        "between ** marks.",
        annotations=READ_ONLY,
    ),
    ToolSpec(
        name="remember",
        title="Remember a note",
        description="Keep a note or fact: it is added to a session as your (the assistant's) "
        "message, compacted into history in time, and dream may carry it into USER.md or "
        "MEMORY.md. Set by_person only for the person's own words, quoted.",
        annotations=ADDS,
    ),
    ToolSpec(
        name="record",
        title="Record messages",
        description="Add a conversation's messages (OpenAI chat shape) to a session, oldest "
        "first; the session compacts itself when its prompt would not fit the model.",
        annotations=ADDS,
    ),
    ToolSpec(
        name="read_memory",
        title="Read a durable file",
        description="Read one of the curated durable files: SOUL.md (how the agent behaves), "
        "USER.md (stable facts about the user) or MEMORY.md (project and world facts).",
        annotations=READ_ONLY,
    ),
    ToolSpec(
        name="status",
        title="Memory status",
        description="Where the workspace stands: mode, pending history entries, durable file "
        "sizes, sessions, the last and next dream, model-call totals.",
        annotations=READ_ONLY,
    ),
    ToolSpec(
        name="recall",
        title="Recall for a question",
        description="The remembered items most relevant to a question or message, quoted "
        "verbatim with their date, speaker and source, oldest first: what reverie puts in a "
        "prompt's Recalled section (no model involved).",
        annotations=READ_ONLY,
    ),
    ToolSpec(
        name="why",
        title="Why is this remembered",
        description="The durable lines that hold the text, and for each the history entries "
        "and session messages (session, time, speaker, text) it was curated from.",
        annotations=READ_ONLY,
    ),
    ToolSpec(
        name="forget",
        title="Forget a fact",
        description="Remove a fact and everything it came from or led to (durable lines, the "
        "sentences of history entries that say it, session messages, index rows) in one audit "
        "commit, and say what was removed. With purge, also rewrite the audit history so no "
        "commit keeps the text. Ask the person first. A text too broad to be one fact (no word "
        "of its own, inside longer words, many lines or messages) is refused: only the person "
        "can confirm that, with `reverie forget --broad`.",
        annotations=ToolAnnotations(
            read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
        ),
    ),
)
"""Every tool ``build_server`` registers, in the order clients list them."""
