"""Commands that open memory to other programs: ``reverie mcp`` and ``reverie serve``.

``mcp`` serves the workspace's memory over stdio to one MCP client (Claude Desktop, Claude
Code, Cursor, nanobot): stdout carries only the protocol, so nothing else is printed there.
``serve`` runs one HTTP server with the OpenAI-compatible memory proxy at ``/v1`` and MCP at
``/mcp``, behind a bearer token, and mounts the viewer at ``/``. Both
run the chat REPL's background worker meanwhile (idle compaction, scheduled dream; never on a
session with an exchange in flight), reporting on stderr. Both import their SDKs (the
``serve`` extra) only when run, so ``reverie --help`` stays fast, and say how to install
them when missing.
"""

import importlib.util
import os
from typing import TYPE_CHECKING, Annotated

import typer

from reverie.cli.context import WorkspaceOption, engine
from reverie.cli.failure import fail
from reverie.cli.render import err

if TYPE_CHECKING:
    from rich.text import Text
    from starlette.routing import BaseRoute

    from reverie.engine import MemoryEngine
    from reverie.serve.upstream import Upstream

EXTRA_HINT = "it needs the serve extra: pip install 'reverie[serve]'"


def mcp(ctx: typer.Context, *, workspace: WorkspaceOption = None) -> None:
    """Serve memory to an MCP client over stdio (tools, and the durable files as resources)."""
    _require("mcp")
    import anyio

    from reverie.cli.background import Background
    from reverie.mcp import run_stdio

    with (
        engine(ctx, workspace, create=True) as memory,
        Background(memory, busy=list, report=_report),
    ):
        anyio.run(run_stdio, memory)


def serve(
    ctx: typer.Context,
    *,
    workspace: WorkspaceOption = None,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8765,
) -> None:
    """Serve memory over HTTP: an OpenAI-compatible proxy at /v1 and MCP at /mcp."""
    for module in ("mcp", "starlette", "uvicorn", "httpx2"):
        _require(module)
    import uvicorn

    from reverie.cli.background import Background
    from reverie.serve import ServeRefusedError, create_app, token_for

    try:
        token, generated = token_for(host, os.environ)
    except ServeRefusedError as exc:
        fail(str(exc))
    with engine(ctx, workspace, create=True) as memory:
        upstream = _upstream(memory)
        app = create_app(
            memory, token=token, upstream=upstream, host=host, mounts=_mounts(memory, token)
        )
        _announce(host, port, token if generated else None, upstream)
        with Background(memory, busy=app.state.proxy.leases.busy, report=_report):
            uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)


def _upstream(memory: "MemoryEngine") -> "Upstream | None":
    """The proxy's endpoint: the engine's configured chat model (OpenAI-compatible only)."""
    from reverie.config_file import api_key
    from reverie.serve.upstream import Upstream

    model = memory.config.model
    if not model.configured:
        return None
    if model.provider != "openai":
        fail(
            f"reverie serve forwards to OpenAI-compatible endpoints; model.provider is "
            f"{model.provider!r} (use an OpenAI-compatible gateway, or provider = 'openai')"
        )
    return Upstream(
        base_url=model.base_url,
        api_key=api_key(model),
        model=model.model,
        timeout=model.timeout_seconds,
    )


def _mounts(memory: "MemoryEngine", token: str) -> "list[BaseRoute]":
    """The viewer at ``/`` (it checks its own cookie, not the bearer token)."""
    from starlette.routing import Mount

    from reverie.viewer import create_viewer

    return [Mount("/", app=create_viewer(memory, token))]


def _announce(host: str, port: int, token: str | None, upstream: "Upstream | None") -> None:
    url = f"http://{host}:{port}"
    console = err()
    console.print(
        f"reverie serve on {url}: OpenAI API at {url}/v1, MCP at {url}/mcp", soft_wrap=True
    )
    if upstream is None:
        console.print(
            "no chat model configured: the proxy answers 503 until one is", style="yellow"
        )
    else:
        console.print(f"forwarding to {upstream.base_url} (model {upstream.model})", soft_wrap=True)
    if token is not None:
        console.print(f"token: {token}", soft_wrap=True, highlight=False)


def _report(line: "Text") -> None:
    err().print(line, soft_wrap=True)


def _require(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        fail(f"{module} is not installed: {EXTRA_HINT}")


def register(app: typer.Typer) -> None:
    """Add the commands to ``app``."""
    app.command()(mcp)
    app.command()(serve)
