"""MCP over streamable HTTP at ``/mcp``: one MCP server per principal, so no session crosses.

Every request is behind the bearer token (``auth.BearerGuard``); its principal is the token's
own, or the one an app or admin token names in the ``X-Reverie-Principal`` header (MCP has no
``user`` field), decided by ``gate.Gate.admit`` like the proxy's (403, 404 refusals). The
request then goes to *that principal's* MCP server and session manager, built on demand over
the principal's engine lent by the server's one ``EnginePool`` for each tool call. Its watch
of the durable files looks only while that engine is open, so an idle principal's MCP server
never keeps its engine open nor reopens it.

The invariant: an ``mcp-session-id`` lives in the session manager of the principal it was
made for, and every other principal's requests go to other managers, where it is unknown
(the SDK answers 404): a session of Alice's used with Bob's token reaches only Bob's server,
which has no such session. Nothing of one principal's server is reachable from another's.

Bounded like the pool: at most ``capacity`` principals have a live MCP server; making room
stops the one used longest ago (its sessions end; its clients start a new one, as after a
restart). Each manager runs in the app's task group (``run``, from the app's lifespan).
After each request, ``exchanged(principal)`` tells the background maintenance to watch it.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractContextManager, asynccontextmanager
from dataclasses import dataclass, field

import anyio
from anyio.abc import TaskGroup, TaskStatus
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from reverie.engine.facade import MemoryEngine
from reverie.engine.owners import PRINCIPAL_HEADER, EnginePool
from reverie.mcp import build_server
from reverie.serve.gate import Admitted, Gate
from reverie.serve.proxy import admit


@dataclass(slots=True)
class _Entry:
    manager: StreamableHTTPSessionManager
    stop: anyio.Event = field(default_factory=anyio.Event)


class McpRoutes:
    """The ``/mcp`` ASGI app: routes each request to its principal's MCP session manager."""

    def __init__(
        self,
        pool: EnginePool,
        gate: Gate,
        *,
        host: str = "127.0.0.1",
        watch_seconds: float = 2.0,
        capacity: int | None = None,
        exchanged: Callable[[str], None] = lambda _principal: None,
    ) -> None:
        self._pool = pool
        self._exchanged = exchanged
        self._gate = gate
        self._host = host
        self._watch_seconds = watch_seconds
        self.capacity = capacity if capacity is not None else pool.capacity
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._lock = anyio.Lock()
        self._group: TaskGroup | None = None

    @asynccontextmanager
    async def run(self) -> AsyncIterator[None]:
        """Host the principals' session managers until the block ends (the app's lifespan)."""
        async with anyio.create_task_group() as group:
            self._group = group
            try:
                yield
            finally:
                self._group = None
                self._entries.clear()
                group.cancel_scope.cancel()

    def principals(self) -> list[str]:
        """The principals with a live MCP server, used longest ago first."""
        return list(self._entries)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Send the request to its principal's session manager (or refuse it)."""
        named = Headers(scope=scope).get(PRINCIPAL_HEADER, "").strip() or None
        admitted = await admit(self._gate, scope, named)
        if isinstance(admitted, Response):
            await admitted(scope, receive, send)
            return
        manager = await self._manager(admitted)
        try:
            await manager.handle_request(scope, receive, send)
        finally:
            self._exchanged(admitted.principal)

    async def _manager(self, admitted: Admitted) -> StreamableHTTPSessionManager:
        principal = admitted.principal
        async with self._lock:
            entry = self._entries.get(principal)
            if entry is not None:
                self._entries.move_to_end(principal)
                return entry.manager
            if self._group is None:
                raise RuntimeError("McpRoutes.run is not running (the app's lifespan)")
            while len(self._entries) >= self.capacity:
                _name, oldest = self._entries.popitem(last=False)
                oldest.stop.set()
            entry = _Entry(manager=self._build(admitted))
            await self._group.start(_host, entry)
            self._entries[principal] = entry
            return entry.manager

    def _build(self, admitted: Admitted) -> StreamableHTTPSessionManager:
        pool, principal, create = self._pool, admitted.principal, admitted.create

        def lend() -> AbstractContextManager[MemoryEngine]:
            return pool.lease(principal, create=create)

        def open_now() -> bool:
            return principal in pool.open_principals()

        server = build_server(lend, watch_seconds=self._watch_seconds, watch_when=open_now)
        server.streamable_http_app(streamable_http_path="/mcp", host=self._host)  # the manager
        return server.session_manager


async def _host(entry: _Entry, *, task_status: TaskStatus[None]) -> None:
    async with entry.manager.run():
        task_status.started()
        await entry.stop.wait()
