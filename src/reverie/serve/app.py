"""The ``reverie serve`` application: the memory proxy, MCP over HTTP, and mounted apps.

Routes, each behind the bearer token (``auth.BearerGuard``, credentials from ``gate.Gate``):

- ``GET /v1/models``, ``POST /v1/chat/completions``: the OpenAI-compatible memory proxy
  (``proxy``);
- ``POST /v1/responses``: the Responses API over the same exchange path (``responses``);
- ``/v1/memories...``: the memories API for any language, its OpenAPI schema at
  ``/v1/memories/openapi.json`` (``memories``);
- any other ``/v1`` path or method: an OpenAI-shaped 404 or 405 (``unknown``);
- ``/mcp``: the MCP server of ``reverie.mcp`` over streamable HTTP, one per principal
  (``mcp_routes``; same tools as stdio).

Every route reaches only the principal its credential decides (``gate``), through the one
``EnginePool`` of the served home. ``mounts`` are added after them unwrapped, for apps with
their own login: the viewer is mounted at ``/``. The app's lifespan runs the principals' MCP
session managers and closes the endpoint's connection pool; the pool's engines are the
caller's to close.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.routing import BaseRoute, Mount, Route, Router

from reverie.engine.owners import EnginePool
from reverie.serve.auth import BearerGuard
from reverie.serve.gate import Gate
from reverie.serve.mcp_routes import McpRoutes
from reverie.serve.memories import MemoriesRoutes
from reverie.serve.proxy import Proxy
from reverie.serve.responses import ResponsesRoute
from reverie.serve.unknown import unknown_route
from reverie.serve.upstream import Upstream
from reverie.serve.workers import DEFAULT_THREADS


def create_app(
    pool: EnginePool,
    *,
    gate: Gate,
    upstream: Upstream | None,
    host: str = "127.0.0.1",
    mounts: Sequence[BaseRoute] = (),
    watch_seconds: float = 2.0,
    exchanged: Callable[[str], None] = lambda _principal: None,
    threads: int = DEFAULT_THREADS,
) -> Starlette:
    """The ASGI app of ``reverie serve``.

    Args:
        pool: the engines of the served home, one per principal.
        gate: the server's credentials (its own token, the home's token book).
        upstream: the model endpoint of the proxy (None: no chat model, the proxy answers 503).
        host: the address the server listens on (loopback turns on the MCP SDK's DNS
            rebinding protection).
        mounts: more routes, not behind the token (they authenticate themselves).
        watch_seconds: how often MCP looks for durable files changed by other processes.
        exchanged: called with the principal after each recorded proxy exchange and each
            MCP request (the background maintenance's ``touch``).
        threads: worker threads of the OpenAI routes' engine calls (their own limiter, see
            ``reverie.serve.workers``).
    """
    proxy = Proxy(pool, upstream, gate, exchanged=exchanged, threads=threads)
    responses = ResponsesRoute(
        proxy.workers, upstream, gate, leases=proxy.leases, exchanged=exchanged
    )
    memories = MemoriesRoutes(pool, gate, exchanged=exchanged)
    mcp = McpRoutes(pool, gate, host=host, watch_seconds=watch_seconds, exchanged=exchanged)
    known = [
        Route("/models", proxy.models, methods=["GET"]),
        Route("/chat/completions", proxy.chat_completions, methods=["POST"]),
        Route("/responses", responses.create, methods=["POST"]),
        *memories.routes(),
    ]
    openai_routes = Router(routes=[*known, unknown_route(known)])

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        try:
            async with mcp.run():
                yield
        finally:
            if upstream is not None:
                await upstream.aclose()

    routes: list[BaseRoute] = [
        Mount("/v1", app=BearerGuard(openai_routes, gate)),
        Route("/mcp", endpoint=BearerGuard(mcp, gate)),
        *mounts,
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.proxy = proxy
    app.state.mcp = mcp
    return app
