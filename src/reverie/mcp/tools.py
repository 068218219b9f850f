"""The MCP tool table: what each tool does, its arguments, and whether it writes.

``MemoryTools`` holds one method per tool, each a thin call of one ``MemoryEngine`` operation
that turns the result into JSON data (the SDK derives every input and output schema from the
signature: ``Annotated`` fields carry the argument descriptions, ``TypedDict`` returns give the
output schema). Each call takes its engine from a ``Lend`` (one engine for stdio, one
principal's engine lent by the pool for ``reverie serve``). ``TOOL_TABLE`` names, titles,
describes and annotates them; ``build_server`` registers every row. A new tool is a method here
plus one row. ``forget`` is the one tool marked ``destructive_hint=True`` (clients ask the
person before calling it).

The methods are synchronous: the SDK runs a synchronous tool in a worker thread, so the event
loop never blocks on a file lock, git or a model call. The engine is safe to share between
threads (its stores hold locks across threads and processes).

Whose words: an MCP client is an assistant, not the person. ``remember`` keeps its note as an
assistant message; the person's own words (``by_person``, ``record``'s user messages) are
accepted only where ``[mcp] person_notes = true`` (``config.McpConfig``), and refused otherwise.

Errors: bad arguments (an unknown file, a malformed message) raise the SDK's ``ToolError``
with what was wrong and where. Every registered tool runs inside ``tool_errors``, which turns
any ``ReverieError`` (no model configured, a busy lock, a refusal on a database workspace...)
into a ``ToolError`` carrying reverie's own message: the SDK would otherwise report it as a
crash, and the client would read only "Error executing tool NAME". Anything else stays a crash
(its text stays on the server). Nothing here holds state.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Annotated, Any, ParamSpec, TypeVar

from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field
from typing_extensions import TypedDict  # pydantic needs it for nested types below 3.12

from reverie.core.durable import FILE_NAMES, MemoryFileName, durable_name
from reverie.core.hits import SearchHit
from reverie.core.json_data import jsonable
from reverie.core.messages import Message, MessageFormatError
from reverie.core.session import is_internal
from reverie.engine.facade import MemoryEngine
from reverie.errors import ReverieError

DEFAULT_SESSION = "mcp:default"
"""Where ``remember`` and ``record`` write unless the client names a session."""


PERSON_NOTES_OFF = (
    "an MCP client's words are kept as its own, not the person's: the person's words come "
    "through the chat itself, or set [mcp] person_notes = true in reverie.toml for a client "
    "that relays them"
)

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
        return {"hits": [_hit(hit) for hit in hits]}

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


P = ParamSpec("P")
R = TypeVar("R")

Lend = Callable[[], AbstractContextManager[MemoryEngine]]
"""How a tool gets its engine for one call: ``reverie serve`` leases it from its pool, so an
engine closed to make room is opened again for the next call; stdio has one engine."""


def lend_one(engine: MemoryEngine) -> Lend:
    """Lend ``engine`` itself to every call."""
    return lambda: nullcontext(engine)


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


def _hit(hit: SearchHit) -> Hit:
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
