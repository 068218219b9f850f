"""Commands that open memory to other programs: ``reverie mcp`` and ``reverie serve``.

``mcp`` serves the workspace's memory over stdio to one MCP client (Claude Desktop, Claude
Code, Cursor, nanobot): one workspace, the person running it; stdout carries only the
protocol, so nothing else is printed there. ``serve`` serves a *home* of principals
(``reverie.serve.home_select``: ``--home``, else the parent folder of the selected workspace,
else the database of ``--store``) over one HTTP server: the OpenAI-compatible memory proxy at
``/v1``, MCP at ``/mcp`` and the viewer at ``/``, each request reaching only the principal its
token decides, through one bounded ``EnginePool``. ``mcp`` runs the engine's background
maintenance meanwhile (``MemoryEngine.start_maintenance``: idle compaction, scheduled dream);
``serve`` runs ``owners.Maintenance``, one fair queue of the same pass over every principal
with an exchange (never on a session with one in flight), both reporting on stderr. Both
import their SDKs (the ``serve`` extra) only when run, so ``reverie --help`` stays fast, and
say how to install them when missing.
"""

import errno
import importlib.util
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from reverie.cli.context import WorkspaceOption, engine, options, workspace_path
from reverie.cli.failure import fail
from reverie.cli.render import err

if TYPE_CHECKING:
    import socket

    from starlette.routing import BaseRoute

    from reverie.config.settings import Config
    from reverie.engine.maintenance import MaintenancePass
    from reverie.engine.owners import CheckReport, EnginePool, Home
    from reverie.serve import Gate
    from reverie.serve.home_select import Served
    from reverie.serve.upstream import Upstream

EXTRA_HINT = "it needs the serve extra: pip install 'reverie[serve]'"

HomeOption = Annotated[
    Path | None,
    typer.Option(
        "--home",
        help="The folder home to serve, one workspace per principal (default: $REVERIE_HOME,"
        " else the parent folder of the workspace, else the database of --store).",
        show_default=False,
    ),
]


def mcp(ctx: typer.Context, *, workspace: WorkspaceOption = None) -> None:
    """Serve memory to an MCP client over stdio (tools, and the durable files as resources)."""
    _require("mcp")
    import anyio

    from reverie.mcp import run_stdio

    with engine(ctx, workspace, create=True) as memory, memory.start_maintenance(report=_report):
        anyio.run(run_stdio, memory)


def serve(
    ctx: typer.Context,
    *,
    workspace: WorkspaceOption = None,
    home: HomeOption = None,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8765,
    threads: Annotated[
        int,
        typer.Option(
            min=1, help="Worker threads for the proxy's memory work (sessions served at once)."
        ),
    ] = 256,
) -> None:
    """Serve memory over HTTP: an OpenAI-compatible proxy at /v1, MCP at /mcp, the viewer at /."""
    for module in ("mcp", "starlette", "uvicorn", "httpx2"):
        _require(module)
    from reverie.serve import Gate, ServeRefusedError, served_home, token_book

    try:
        token, generated = token_for_host(host)
    except ServeRefusedError as exc:
        fail(str(exc))
    served = served_home(workspace_path(ctx, workspace), store=options(ctx).store, home=home)
    rule = served.config.serve.unknown_principals
    gate = Gate(served.home, token, book=token_book(served.home), unknown_principals=rule)
    listening = _listen(host, port)
    shown = token if generated else None
    _run(served, gate, listening, where=(host, port), threads=threads, shown=shown)


def _listen(host: str, port: int) -> "socket.socket":
    """The server's socket, bound before anything is printed (a busy port is one line)."""
    import socket

    try:
        return socket.create_server((host.strip("[]"), port), reuse_port=False)
    except OSError as exc:
        reason = "is in use" if exc.errno == errno.EADDRINUSE else f"cannot be bound ({exc})"
        fail(f"port {port} on {host} {reason}: stop what listens there or pass --port")


def _run(
    served: "Served",
    gate: "Gate",
    listening: "socket.socket",
    *,
    where: tuple[str, int],
    threads: int,
    shown: str | None,
) -> None:
    """Serve ``served`` with one pool and the background maintenance until stopped."""
    import uvicorn

    from reverie.engine.owners import EnginePool, Maintenance
    from reverie.serve import create_app

    host = where[0]  # the port shown is the one the socket bound (``--port 0``)
    pool = EnginePool(served.home)

    def busy(principal: str) -> list[str]:
        # Asked from the maintenance threads, which start once the app exists.
        return list(app.state.proxy.leases.busy(principal))

    maintenance = Maintenance(pool, busy=busy, report=_report_check)
    try:
        # The default principal's workspace is laid out at start, as before (a folder home).
        with pool.lease(served.home.default, create=served.home.state_folder() is not None):
            pass
        upstream = _upstream(served.config)
        mounts = _mounts(pool, gate)
        app = create_app(
            pool,
            gate=gate,
            upstream=upstream,
            host=host,
            mounts=mounts,
            exchanged=maintenance.touch,
            threads=threads,
        )
        # The port the socket bound: ``--port 0`` asks the system for a free one.
        _announce(host, listening.getsockname()[1], shown, upstream, served.home)
        maintenance.touch(served.home.default)
        config = uvicorn.Config(
            app, log_level="warning", access_log=False, timeout_graceful_shutdown=10
        )
        with maintenance, listening:
            uvicorn.Server(config).run(sockets=[listening])
    finally:
        pool.close()
        served.home.close()


def token_for_host(host: str) -> tuple[str, bool]:
    """The server's own token for ``host`` and whether it was generated here."""
    from reverie.serve import token_for

    return token_for(host, os.environ)


def _upstream(config: "Config") -> "Upstream | None":
    """The proxy's endpoint: the configured chat model (OpenAI-compatible only)."""
    from reverie.config.file import api_key
    from reverie.serve.upstream import Upstream

    model = config.model
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


def _mounts(pool: "EnginePool", gate: "Gate") -> "list[BaseRoute]":
    """The viewer at ``/`` (it checks its own login and cookie, not the bearer token)."""
    from starlette.routing import Mount

    from reverie.viewer import HomeMemories, create_viewer

    return [Mount("/", app=create_viewer(HomeMemories(pool, gate.grant)))]


def _announce(
    host: str, port: int, token: str | None, upstream: "Upstream | None", home: "Home"
) -> None:
    url = f"http://{host}:{port}"
    console = err()
    console.print(
        f"reverie serve on {url}: OpenAI API at {url}/v1, MCP at {url}/mcp", soft_wrap=True
    )
    console.print(
        f"serving the home {home.location} (default principal {home.default!r})",
        soft_wrap=True,
        highlight=False,
    )
    if upstream is None:
        console.print(
            "no chat model configured: the proxy answers 503 until one is", style="yellow"
        )
    else:
        console.print(
            f"forwarding to {upstream.shown_url} (model {upstream.model})",
            soft_wrap=True,
            highlight=False,
        )
    if token is not None:
        console.print(f"viewer: {url}/?token={token}", soft_wrap=True, highlight=False)
        console.print(f"token: {token}", soft_wrap=True, highlight=False)
    else:
        console.print(
            f"viewer: {url}/?token=<REVERIE_SERVE_TOKEN, or a principal's token>",
            soft_wrap=True,
            highlight=False,
        )


def _report(done: "MaintenancePass") -> None:
    """What a background pass did, on stderr (stdout carries the MCP protocol)."""
    from reverie.cli.memory_views import maintenance_lines

    for line in maintenance_lines(done):
        err().print(line, soft_wrap=True)


def _report_check(report: "CheckReport") -> None:
    """One principal's background check, on stderr (quiet when it did nothing)."""
    console = err()
    if report.error is not None:
        console.print(
            f"background ({report.principal}): {report.error}",
            style="yellow",
            soft_wrap=True,
            highlight=False,
        )
    for line in report.lines:
        console.print(f"{report.principal}: {line}", soft_wrap=True, highlight=False)


def _require(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        fail(f"{module} is not installed: {EXTRA_HINT}")


def register(app: typer.Typer) -> None:
    """Add the commands to ``app``."""
    app.command()(mcp)
    app.command()(serve)
