"""The MCP tools: one method per tool, each a thin call of one ``MemoryEngine`` operation.

``MemoryTools`` holds one method per tool, each turning the engine's result into JSON data (the
SDK derives every input and output schema from the signature, whose argument and result types
are in ``reverie.mcp.schema``). Each call takes its engine from a ``Lend`` (one engine for
stdio, one principal's engine lent by the pool for ``reverie serve``). ``reverie.mcp.table``
names, titles, describes and annotates them; ``build_server`` registers every row. A new tool
is a method here plus one row there.

The methods are synchronous: the SDK runs a synchronous tool in a worker thread, so the event
loop never blocks on a file lock, git or a model call. The engine is safe to share between
threads (its stores hold locks across threads and processes).

Whose words: an MCP client is an assistant, not the person. ``remember`` keeps its note as an
assistant message; the person's own words (``by_person``, ``record``'s user messages) are
accepted only where ``[mcp] person_notes = true`` (``config.McpConfig``), and refused otherwise.

Errors: bad arguments raise the SDK's ``ToolError`` with what was wrong and where; every
registered tool runs inside ``reverie.mcp.table.tool_errors``, which reports a ``ReverieError``
to the client with reverie's own message. Nothing here holds state.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Annotated, Any

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from reverie.core.json_data import jsonable
from reverie.core.messages import Message
from reverie.core.session import is_internal
from reverie.engine.facade import MemoryEngine
from reverie.mcp.schema import (
    DEFAULT_SESSION,
    DurableFile,
    FileText,
    Query,
    Recorded,
    RememberedText,
    SearchResult,
    Session,
    WriteSession,
    durable_file,
    hit_result,
    parse_messages,
)

PERSON_NOTES_OFF = (
    "an MCP client's words are kept as its own, not the person's: the person's words come "
    "through the chat itself, or set [mcp] person_notes = true in reverie.toml for a client "
    "that relays them"
)


class MemoryTools:
    """One method per MCP tool, each a thin call of one ``MemoryEngine`` operation."""

    def __init__(self, lend: Lend) -> None:
        self._lend = lend

    def search_memory(
        self,
        query: Query,
        limit: Annotated[int, Field(ge=1, le=100, description="At most this many hits.")] = 10,
        session: Session = None,
    ) -> SearchResult:
        """Search history entries and session messages (see TOOL_TABLE)."""
        with self._lend() as engine:
            hits = engine.search(query, limit=limit, session_key=session)
        return {"hits": [hit_result(hit) for hit in hits]}

    def remember(
        self,
        text: Annotated[str, Field(min_length=1, description="The fact or note to keep.")],
        session: WriteSession = DEFAULT_SESSION,
        by_person: Annotated[  # noqa: FBT002 (an MCP tool argument: the SDK passes it by name)
            bool,
            Field(
                description="True when the note is the person's own words, not yours (kept as "
                "theirs only where [mcp] person_notes = true)."
            ),
        ] = False,
    ) -> Recorded:
        """Add one note to a session, as the client's own words (see TOOL_TABLE)."""
        if not text.strip():
            raise ToolError("remember needs a note to keep, got only white space")
        with self._lend() as engine:
            allowed = engine.config.mcp.person_notes
        if by_person and not allowed:
            raise ToolError(PERSON_NOTES_OFF)
        note = text.strip()
        message = Message(role="user" if by_person else "assistant", content=note)
        return self._record(session, [message])

    def record(
        self,
        messages: Annotated[
            list[dict[str, Any]],
            Field(
                min_length=1,
                description="Chat messages in the OpenAI shape: {role, content, tool_calls?, "
                "tool_call_id?}; role is assistant, tool or system (user only where "
                "[mcp] person_notes = true).",
            ),
        ],
        session: WriteSession = DEFAULT_SESSION,
    ) -> Recorded:
        """Add a conversation's messages to a session (see TOOL_TABLE)."""
        parsed = parse_messages(messages)
        with self._lend() as engine:
            allowed = engine.config.mcp.person_notes
        for position, message in enumerate(parsed):
            if message.role == "user" and not allowed:
                raise ToolError(f"messages[{position}]: {PERSON_NOTES_OFF}")
        return self._record(session, parsed)

    def read_memory(self, file: DurableFile) -> FileText:
        """Return one durable file's text (see TOOL_TABLE)."""
        shown, name = durable_file(file)
        with self._lend() as engine:
            return {"file": shown, "text": engine.read_memory(name)}

    def status(self) -> dict[str, Any]:
        """Where the workspace stands (see TOOL_TABLE)."""
        with self._lend() as engine:
            found = jsonable(engine.status())
        assert isinstance(found, dict)
        return found

    def recall(self, query: Query, session: Session = None) -> dict[str, Any]:
        """What a prompt would recall for ``query`` (see TOOL_TABLE)."""
        with self._lend() as engine:
            found = engine.recall(query, session=session)
        return {
            "text": found.text,
            "items": [
                {
                    "source": str(item.ref),
                    "timestamp": item.timestamp.isoformat() if item.timestamp else None,
                    "speaker": item.speaker,
                    "text": item.text,
                    "score": round(item.score, 4),
                    "why": list(item.why),
                }
                for item in found.items
            ],
        }

    def why(self, text: RememberedText) -> dict[str, Any]:
        """Where the durable lines holding ``text`` came from (see TOOL_TABLE)."""
        with self._lend() as engine:
            return dict(engine.why(text).to_json())

    def forget(
        self,
        text: RememberedText,
        purge: Annotated[  # noqa: FBT002 (an MCP tool argument: the SDK passes it by name)
            bool, Field(description="Also rewrite the audit history so no commit keeps it.")
        ] = False,
    ) -> dict[str, Any]:
        """Remove a fact and what it came from or led to (see TOOL_TABLE)."""
        with self._lend() as engine:
            return dict(engine.forget(text, purge=purge).to_json())

    def _record(self, session: str, messages: list[Message]) -> Recorded:
        if not session.strip():
            raise ToolError("session must not be empty")
        if is_internal(session):
            raise ToolError(f"session {session!r} is reserved for reverie's own sessions")
        with self._lend() as engine:
            result = engine.record(session, messages)
        return {
            "session": session,
            "first_index": result.indices.start,
            "count": len(result.indices),
            "compaction": result.compaction.outcome,
        }


Lend = Callable[[], AbstractContextManager[MemoryEngine]]
"""How a tool gets its engine for one call: ``reverie serve`` leases it from its pool, so an
engine closed to make room is opened again for the next call; stdio has one engine."""


def lend_one(engine: MemoryEngine) -> Lend:
    """Lend ``engine`` itself to every call."""
    return lambda: nullcontext(engine)
