"""Build the MCP server over one engine (or a lender of one): tools, resources, dream.

``build_server`` registers every row of ``table.TOOL_TABLE``, the three durable files as
resources, and the ``dream`` tool, which runs a dream and then announces the files it changed.
Change events go to ``subscriptions/listen`` streams (protocol 2026-07-28) through the server's
subscription bus: right after a dream run through the tool, and from a watch that looks every
``watch_seconds`` for changes made by other processes. A client on an earlier protocol (no
listen stream) is sent ``notifications/resources/updated`` on its own session when it runs
the ``dream`` tool. The same server object serves stdio
(``run_stdio``) and streamable HTTP (``reverie serve`` builds one per principal, each over
that principal's engine lent by its pool: ``serve.mcp_routes``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.subscriptions import InMemorySubscriptionBus, ResourceUpdated
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError
from typing_extensions import TypedDict

from reverie.core.durable import MEMORY_FILE_NAMES, MemoryFileName
from reverie.engine.facade import MemoryEngine
from reverie.mcp.resources import FILE_TITLES, FileWatch, uri
from reverie.mcp.table import CURATES, TOOL_TABLE, async_tool_errors
from reverie.mcp.tools import Lend, MemoryTools, lend_one
from reverie.memory.dream.result import DreamResult

INSTRUCTIONS = (
    "reverie is this user's long-term memory. Search it (search_memory) before answering "
    "questions about the past; read USER.md and MEMORY.md for stable facts; record or "
    "remember what should outlive this conversation."
)


class DreamSummary(TypedDict):
    """How one dream run ended and what it changed."""

    outcome: str
    mode: str
    reason: str
    entries: int
    files_changed: list[str]
    commit: str | None


class Announcer:
    """Publishes a resource-updated event for each durable file that changed."""

    def __init__(self, lend: Lend, bus: InMemorySubscriptionBus) -> None:
        self.watch = FileWatch(lend)
        self.bus = bus

    async def announce(self) -> list[str]:
        """Look at the files now and publish an event per changed one; return their URIs."""
        changed = await anyio.to_thread.run_sync(self.watch.changed)
        for found in changed:
            await self.bus.publish(ResourceUpdated(uri=found))
        return changed

    async def keep_watching(self, seconds: float, when: Callable[[], bool]) -> None:
        """Announce changes every ``seconds`` until cancelled, on the looks ``when()`` allows.

        A skipped look loses nothing: the next one compares with the last fingerprints.
        """
        while True:
            await anyio.sleep(seconds)
            if when():
                await self.announce()


def build_server(
    engine: MemoryEngine | Lend,
    *,
    watch_seconds: float = 2.0,
    watch_when: Callable[[], bool] = lambda: True,
) -> MCPServer:
    """The MCP server for ``engine``: tools, durable-file resources, change events.

    ``engine`` is one engine, or a lender that gives one principal's engine per call;
    ``watch_when`` says whether the watch may look now (``reverie serve``: only while the
    principal's engine is open, so the watch never reopens one the pool closed).
    """
    lend = lend_one(engine) if isinstance(engine, MemoryEngine) else engine
    bus = InMemorySubscriptionBus()
    announcer = Announcer(lend, bus)

    @asynccontextmanager
    async def lifespan(_server: MCPServer) -> AsyncIterator[None]:
        async with anyio.create_task_group() as group:
            group.start_soon(announcer.keep_watching, watch_seconds, watch_when)
            yield
            group.cancel_scope.cancel()

    server = _Server(
        "reverie",
        instructions=INSTRUCTIONS,
        subscriptions=bus,
        lifespan=lifespan,
        log_level="WARNING",
    )
    tools = MemoryTools(lend)
    for spec in TOOL_TABLE:
        server.add_tool(
            spec.bind(tools),
            name=spec.name,
            title=spec.title,
            description=spec.description,
            annotations=spec.annotations,
        )
    _add_dream(server, lend, announcer)
    for name in MEMORY_FILE_NAMES:
        _add_resource(server, lend, name)
    return server


class _Server(MCPServer):
    """The SDK's server, reporting arguments that fail the schema in one line.

    The SDK would send pydantic's dump (several lines and an errors.pydantic.dev URL per
    field); the client gets ``Error executing tool search_memory: limit: Input should be
    less than or equal to 100`` instead.
    """

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> Any:
        """Call a tool; a schema failure is one line naming each wrong argument."""
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if not isinstance(cause, ValidationError):
                raise
            said = "; ".join(
                f"{'.'.join(str(part) for part in error['loc']) or 'arguments'}: {error['msg']}"
                for error in cause.errors(include_url=False)
            )
            raise ToolError(f"Error executing tool {name}: {said}") from None


def _dream(lend: Lend) -> DreamResult:
    with lend() as engine:
        return engine.dream()


def _add_dream(server: MCPServer, lend: Lend, announcer: Announcer) -> None:
    @async_tool_errors
    async def dream(ctx: Context) -> DreamSummary:
        result = await anyio.to_thread.run_sync(_dream, lend)
        changed = await announcer.announce()
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            # Handshake-era clients have no listen stream: tell this one on its own session.
            for found in changed:
                await ctx.session.send_resource_updated(found)
        return {
            "outcome": result.outcome,
            "mode": result.mode,
            "reason": result.reason,
            "entries": result.entries,
            "files_changed": list(result.files_changed),
            "commit": result.commit,
        }

    server.add_tool(
        dream,
        name="dream",
        title="Dream now",
        description="Curate the durable files now from the history not yet dreamt (one git "
        "commit; `reverie restore` undoes it). Subscribers to the file resources are told "
        "which files changed.",
        annotations=CURATES,
    )


def _read(lend: Lend, name: MemoryFileName) -> str:
    with lend() as engine:
        return engine.read_memory(name)


def _add_resource(server: MCPServer, lend: Lend, name: MemoryFileName) -> None:
    title, description = FILE_TITLES[name]

    async def read() -> str:
        return await anyio.to_thread.run_sync(_read, lend, name)

    server.resource(uri(name), name=title, description=description, mime_type="text/markdown")(read)


async def run_stdio(engine: MemoryEngine) -> None:
    """Serve ``engine`` over stdin/stdout until the client closes the stream."""
    await build_server(engine).run_stdio_async()
