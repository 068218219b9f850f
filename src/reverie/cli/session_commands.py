"""Commands that start a workspace or talk with the built-in agent: ``init``, ``ask``, ``chat``.

``init`` lays the workspace out and writes a commented ``reverie.toml``, never replacing one.
``ask`` answers one message; ``chat`` is the REPL (``reverie.cli.repl``) with idle compaction
and scheduled dream in the background (``reverie.engine.maintenance``). Both need a chat model and
say how to configure one when there is none; both lay out a missing workspace.
"""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from reverie.cli.context import DEFAULT_SESSION, WorkspaceOption, engine, options, workspace_path
from reverie.cli.failure import fail
from reverie.cli.render import emit_json, err, notice, out
from reverie.cli.store_commands import StoreOption
from reverie.cli.store_commands import init as store_init

if TYPE_CHECKING:
    from reverie.memory.agent import TurnResult

SessionOption = Annotated[
    str, typer.Option("--session", "-s", help="The session to talk in.", show_default=True)
]


def init(
    ctx: typer.Context,
    path: Annotated[
        Path | None, typer.Argument(help="The workspace folder (default: as --workspace).")
    ] = None,
    *,
    workspace: WorkspaceOption = None,
    store: StoreOption = None,
) -> None:
    """Lay out the workspace and write a commented reverie.toml (never overwriting one).

    With ``--store postgresql://...`` (or ``$REVERIE_STORE``): apply the database schema's
    migrations and make the workspace named by PATH or ``-w`` there (``reverie store init``).
    """
    from rich.text import Text

    from reverie.config.file import CONFIG_NAME, config_text, default_workspace

    workspace = path or workspace_path(ctx, workspace)
    store = store or options(ctx).store
    if store:
        store_init(ctx, store, str(workspace) if workspace is not None else "default")
        return
    root = (workspace or default_workspace()).expanduser()
    config = root / CONFIG_NAME
    if config.exists():
        fail(f"{config} already exists; not overwritten (edit it, or remove it and run init)")
    with engine(ctx, workspace, create=True) as memory:
        config = Path(memory.location) / CONFIG_NAME
        try:
            with config.open("x", encoding="utf-8") as handle:
                handle.write(config_text())
        except FileExistsError:
            fail(f"{config} already exists; not overwritten")
        except OSError as exc:
            fail(f"cannot write {config}: {exc.strerror}")
        out().print(Text(f"workspace ready: {memory.location}", style="green"))
        out().print(f"wrote {config}")
        out().print(
            Text(
                "next: name the model under [model] in that file (model, and base_url for a "
                "local server), put the key in REVERIE_API_KEY, then run `reverie chat`. "
                "Without a model, memory runs model-free."
            )
        )


def ask(
    ctx: typer.Context,
    message: Annotated[str, typer.Argument(help="What to say to the agent.")],
    session: SessionOption = DEFAULT_SESSION,
    *,
    workspace: WorkspaceOption = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Send one message to the built-in agent and print its answer."""
    from reverie.cli.record_views import compaction_line

    with engine(ctx, workspace, create=True) as memory:
        memory.check_chat_model()  # fail fast, with the how-to
        with err().status("thinking…"):
            result = memory.turn(session, message)
    if json_output:
        emit_json({"session": session, **_turn_fields(result)})
        return
    for compaction in result.compactions:
        notice(str(compaction_line(session, compaction)))
    typer.echo(result.reply)


def _turn_fields(result: "TurnResult") -> dict[str, object]:
    return {
        "reply": result.reply,
        "model_calls": result.model_calls,
        "prompt_tokens": result.prompt_tokens,
        "compactions": result.compactions,
        "stopped_early": result.stopped_early,
    }


def chat(
    ctx: typer.Context,
    session: SessionOption = DEFAULT_SESSION,
    *,
    workspace: WorkspaceOption = None,
) -> None:
    """Talk with the built-in agent (/dream, /compact, /status, /new, /quit)."""
    from reverie.cli.repl import Repl

    with engine(ctx, workspace, create=True) as memory:
        memory.check_chat_model()  # fail fast, with the how-to
        repl = Repl(memory, session=session)
        with memory.start_maintenance(busy=repl.busy_sessions, report=repl.background_report):
            repl.run()


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    for command in (init, ask, chat):
        app.command()(command)
