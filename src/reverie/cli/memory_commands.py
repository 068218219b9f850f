"""Commands that curate memory and its audit trail: dream, compact, index, log, show, restore.

They open the existing workspace, call the engine, and say plainly which mode (model or
model-free) made each change. A dream run that fails exits 1 after saying why; ``--dry-run``
prints the diff it would have published.
"""

from typing import Annotated

import typer

from reverie.cli.context import WorkspaceOption, engine
from reverie.cli.failure import fail
from reverie.cli.render import emit_json, err, out, print_diff
from reverie.core.inbound import MAX_LIMIT
from reverie.core.json_data import jsonable

JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON.")]
Revision = Annotated[str, typer.Argument(help="A commit: sha, unique prefix, HEAD or HEAD~N.")]


def dream(
    ctx: typer.Context,
    *,
    workspace: WorkspaceOption = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show the diff; publish and commit nothing.")
    ] = False,
    json_output: JsonFlag = False,
) -> None:
    """Curate the durable files from the next batch of history (one git commit)."""
    from reverie.cli.memory_views import dream_line

    with engine(ctx, workspace) as memory, err().status(f"dreaming ({memory.mode})…"):
        result = memory.dream(dry_run=dry_run)
    if json_output:
        emit_json(result)
    else:
        out().print(dream_line(result), soft_wrap=True)
        if result.dry_run:
            print_diff(result.diff)
    if result.failed:
        raise typer.Exit(1)


def compact(
    ctx: typer.Context,
    session: Annotated[str, typer.Argument(help="The session key, e.g. cli:default.")],
    *,
    workspace: WorkspaceOption = None,
    json_output: JsonFlag = False,
) -> None:
    """Compact every pending message of a session into history now."""
    from reverie.cli.record_views import compaction_line

    with engine(ctx, workspace) as memory:
        if not memory.has_session(session):
            fail(f"no session {session!r}; `reverie sessions` lists them")
        with err().status(f"compacting {session} ({memory.mode})…"):
            result = memory.compact(session)
    if json_output:
        emit_json(result)
    else:
        out().print(compaction_line(session, result), soft_wrap=True)


def index(
    ctx: typer.Context,
    *,
    workspace: WorkspaceOption = None,
    json_output: JsonFlag = False,
) -> None:
    """Give every remembered item its dense-recall vector now (the embeddings extra).

    Prompts encode a few new items each; a large backlog (an ingest, a workspace that just
    got the extra) is encoded here, or at the end of ingest, dream and compact.
    """
    with engine(ctx, workspace) as memory:
        with err().status("encoding items for dense recall…") as shown:
            encoded = memory.index_vectors(
                lambda done: shown.update(f"encoding items for dense recall… {done:,}")
            )
        recall = memory.status().recall
    if json_output:
        emit_json({"encoded": encoded, "recall": recall})
    else:
        out().print(f"encoded {encoded:,} items; recall: {recall}", soft_wrap=True)


def log(
    ctx: typer.Context,
    number: Annotated[
        int, typer.Option("--number", "-n", help="How many commits.", min=1, max=MAX_LIMIT)
    ] = 20,
    *,
    workspace: WorkspaceOption = None,
    json_output: JsonFlag = False,
) -> None:
    """List audit commits of the durable files, newest first."""
    from reverie.cli.memory_views import commits_table

    with engine(ctx, workspace, read_only=True) as memory:
        commits = memory.log(number)
    if json_output:
        emit_json(commits)
    else:
        out().print(commits_table(commits))


def show(
    ctx: typer.Context,
    rev: Revision,
    *,
    workspace: WorkspaceOption = None,
    json_output: JsonFlag = False,
) -> None:
    """Show one audit commit and its diff."""
    from reverie.cli.memory_views import commit_header

    with engine(ctx, workspace, read_only=True) as memory:
        detail = memory.show(rev)
    if json_output:
        emit_json(detail)
    else:
        out().print(commit_header(detail))
        print_diff(detail.diff)


def restore(
    ctx: typer.Context,
    rev: Revision,
    *,
    workspace: WorkspaceOption = None,
    json_output: JsonFlag = False,
    force: Annotated[
        bool, typer.Option("--force", help="Restore even past a trim (trimmed entries are lost).")
    ] = False,
) -> None:
    """Put the durable files and the dream cursor back as of a commit (a new commit).

    A commit older than a history trim is refused unless --force: the entries it would
    dream again were trimmed, so what dream learnt from them would be lost.
    """
    from reverie.cli.memory_views import restore_line

    with engine(ctx, workspace) as memory:
        head = memory.log(1)
        info = memory.restore(rev, force=force)
    made = not head or head[0].sha != info.sha  # a restore that changes nothing makes no commit
    if json_output:
        found = jsonable(info)
        emit_json({**found, "changed": made} if isinstance(found, dict) else found)
    else:
        out().print(restore_line(info, rev=rev, made=made), soft_wrap=True)


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    for command in (dream, compact, index, log, show, restore):
        app.command()(command)
