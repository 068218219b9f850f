"""The ``reverie serve`` application: the memory proxy, MCP over HTTP, and mounted apps.

Routes, each behind the bearer token (``auth.BearerGuard``):

- ``GET /v1/models``, ``POST /v1/chat/completions``: the OpenAI-compatible memory proxy
  (``proxy``);
- ``/mcp``: the MCP server of ``reverie.mcp`` over streamable HTTP (same tools as stdio).

``mounts`` are added after them unwrapped, for apps with their own authentication: the
viewer is mounted at ``/`` with ``Mount("/", app=create_viewer(engine, token))``. The app's
lifespan runs the MCP session manager and closes the endpoint's connection pool.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
from starlette.applications import Starlette
from starlette.routing import BaseRoute, Mount, Route, Router

from reverie.engine import MemoryEngine
from reverie.mcp import build_server
from reverie.serve.auth import BearerGuard
from reverie.serve.proxy import Proxy
from reverie.serve.upstream import Upstream


def create_app(
    engine: MemoryEngine,
    *,
    token: str,
    upstream: Upstream | None,
    host: str = "127.0.0.1",
    mounts: Sequence[BaseRoute] = (),
    watch_seconds: float = 2.0,
) -> Starlette:
    """The ASGI app of ``reverie serve``.

    Args:
        engine: the memory every route uses.
        token: the bearer token every own route requires.
        upstream: the model endpoint of the proxy (None: no chat model, the proxy answers 503).
        host: the address the server listens on (loopback turns on the MCP SDK's DNS
            rebinding protection).
        mounts: more routes, not behind the token (they authenticate themselves).
        watch_seconds: how often MCP looks for durable files changed by other processes.
    """
    proxy = Proxy(engine, upstream)
    mcp_server = build_server(engine, watch_seconds=watch_seconds)
    mcp_server.streamable_http_app(streamable_http_path="/mcp", host=host)  # makes the manager
    manager = mcp_server.session_manager
    openai_routes = Router(
        routes=[
            Route("/models", proxy.models, methods=["GET"]),
            Route("/chat/completions", proxy.chat_completions, methods=["POST"]),
        ]
    )

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        try:
            async with manager.run():
                yield
        finally:
            if upstream is not None:
                await upstream.aclose()

    routes: list[BaseRoute] = [
        Mount("/v1", app=BearerGuard(openai_routes, token)),
        Route("/mcp", endpoint=BearerGuard(StreamableHTTPASGIApp(manager), token)),
        *mounts,
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.proxy = proxy
    return app
