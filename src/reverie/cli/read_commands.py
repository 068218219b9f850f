"""Commands that read memory: history, search, recall, sessions, status, cost, doctor, export.

Each opens the existing workspace (never creating one), asks the engine, and prints a table
or, with ``--json``, the engine's values as JSON. ``doctor`` exits 1 when it finds a problem;
notes alone leave the exit status 0. ``export --json`` prints the selected workspace whole
(``owners.export``: the document ``reverie principal export --json`` prints).
"""

from typing import Annotated

import typer

from reverie.cli.context import WorkspaceOption, engine
from reverie.cli.failure import fail
from reverie.cli.render import emit_json, notice, out
from reverie.core.inbound import MAX_LIMIT

JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
SessionOption = Annotated[
    str | None, typer.Option("--session", "-s", help="Only this session's items.")
]


def history(
    ctx: typer.Context,
    since: Annotated[
        int | None, typer.Option(help="Entries after this cursor (oldest first).", min=0)
    ] = None,
    session: SessionOption = None,
    limit: Annotated[
        int, typer.Option("--limit", "-n", help="At most this many.", min=1, max=MAX_LIMIT)
    ] = 50,
    *,
    workspace: WorkspaceOption = None,
    json_output: JsonFlag = False,
) -> None:
    """List history entries: the newest ones, or those after --since."""
    from reverie.cli.record_views import history_table

    with engine(ctx, workspace, read_only=True) as memory:
        entries = memory.history(since=since, session_key=session, limit=limit)
    if json_output:
        emit_json(entries)
    elif entries:
        out().print(history_table(entries))
    else:
        notice("no history entry matches")


def search(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="Words to look for.")],
    session: SessionOption = None,
    limit: Annotated[
        int, typer.Option("--limit", "-n", help="At most this many.", min=1, max=MAX_LIMIT)
    ] = 10,
    *,
    workspace: WorkspaceOption = None,
    json_output: JsonFlag = False,
) -> None:
    """Search history entries and every session message (compacted ones too)."""
    from reverie.cli.record_views import hits_table

    with engine(ctx, workspace, read_only=True) as memory:
        hits = memory.search(query, limit=limit, session_key=session)
    if json_output:
        emit_json(hits)
    elif hits:
        out().print(hits_table(hits))
    else:
        notice("no match")


def recall(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="The message to recall for.")],
    session: Annotated[
        str | None, typer.Option("--session", "-s", help="The session the message is in.")
    ] = None,
    *,
    workspace: WorkspaceOption = None,
    json_output: JsonFlag = False,
) -> None:
    """Show what a prompt would recall for a message: the Recalled section and its items."""
    with engine(ctx, workspace, read_only=True) as memory:
        found = memory.recall(query, session=session)
    if json_output:
        emit_json(found)
    elif found.items:
        out().print(found.text, soft_wrap=True)
    else:
        notice("nothing is recalled for that message")


def show_session(
    ctx: typer.Context,
    key: Annotated[str, typer.Argument(help="The session key (see `reverie sessions`).")],
    *,
    workspace: WorkspaceOption = None,
    json_output: JsonFlag = False,
    raw: Annotated[
        bool,
        typer.Option(
            "--raw",
            help="With [sessions] raw_transcripts = true: the raw text, secrets in (the owner's"
            " view; nothing else shows it).",
        ),
    ] = False,
) -> None:
    """Print one session's messages, oldest first (the compacted ones marked)."""
    from reverie.cli.record_views import session_lines

    with engine(ctx, workspace, read_only=True) as memory:
        if not memory.has_session(key):
            fail(f"no session {key!r} (`reverie sessions` lists them)")
        found = memory.transcript(key, raw=raw)
    if json_output:
        emit_json(found)
    else:
        out().print(session_lines(found), soft_wrap=True)


def sessions(
    ctx: typer.Context, *, workspace: WorkspaceOption = None, json_output: JsonFlag = False
) -> None:
    """List sessions with their message counts and last activity."""
    from reverie.cli.record_views import sessions_table

    with engine(ctx, workspace, read_only=True) as memory:
        found = memory.sessions()
    if json_output:
        emit_json(found)
    elif found:
        out().print(sessions_table(found))
    else:
        notice("no session yet")


def status(
    ctx: typer.Context, *, workspace: WorkspaceOption = None, json_output: JsonFlag = False
) -> None:
    """Show pending entries, file sizes, the last and next dream, ledger totals and the mode."""
    from reverie.cli.status_view import print_status

    with engine(ctx, workspace, read_only=True) as memory:
        snapshot = memory.status()
    if json_output:
        emit_json(snapshot)
    else:
        print_status(snapshot)


def cost(
    ctx: typer.Context, *, workspace: WorkspaceOption = None, json_output: JsonFlag = False
) -> None:
    """Show the ledger of memory jobs by job and by day: calls and tokens in and out."""
    from reverie.cli.memory_views import cost_view

    with engine(ctx, workspace, read_only=True) as memory:
        summary = memory.costs()
    if json_output:
        emit_json(
            {
                "by_job": summary.by_job,
                "by_day": [
                    {
                        "day": day,
                        "job": job,
                        "calls": totals.calls,
                        "tokens_in": totals.tokens_in,
                        "tokens_out": totals.tokens_out,
                        "outcomes": totals.outcomes,
                    }
                    for (day, job), totals in sorted(summary.by_day.items())
                ],
                "unreadable": summary.unreadable,
            }
        )
    else:
        out().print(cost_view(summary))


RepairFlag = Annotated[
    bool,
    typer.Option(
        "--repair-audit",
        help="Start a new audit repository when .git is missing (or accept a replaced one), "
        "then check.",
    ),
]
RedactSessionsFlag = Annotated[
    bool,
    typer.Option(
        "--redact-sessions",
        help="Rewrite session messages that still hold a secret (written before redaction ran"
        " on append) redacted, refresh the search index and vectors, then check.",
    ),
]


def doctor(
    ctx: typer.Context,
    *,
    workspace: WorkspaceOption = None,
    json_output: JsonFlag = False,
    repair_audit: RepairFlag = False,
    redact_sessions: RedactSessionsFlag = False,
) -> None:
    """Check the workspace's integrity; exit 1 on problems (notes alone pass)."""
    from reverie.cli.record_views import doctor_view
    from reverie.engine.facade import MemoryEngine
    from reverie.errors import OutsideLinkError

    try:
        with engine(ctx, workspace, read_only=not (repair_audit or redact_sessions)) as memory:
            if repair_audit:
                repaired = memory.repair_audit()
                notice(f"audit repository: {repaired.state}")
            if redact_sessions:
                done = memory.redact_sessions()
                notice(
                    f"redacted {done.messages} message(s) and {done.summaries} summary(ies)"
                    f" in {done.sessions} session(s)"
                )
            report = memory.doctor()
    except OutsideLinkError as exc:
        if exc.root is None:
            raise
        report = MemoryEngine.doctor_links(exc.root)  # every link, not only the first
    if json_output:
        emit_json({"ok": report.ok, "findings": report.findings})
    else:
        out().print(doctor_view(report))
    if not report.ok:
        raise typer.Exit(1)


def export(
    ctx: typer.Context,
    *,
    workspace: WorkspaceOption = None,
    json_output: Annotated[
        bool,
        typer.Option("--json", help="Print every file, history entry and session message."),
    ] = False,
) -> None:
    """Export the selected workspace whole as JSON (the document ``principal export`` prints)."""
    from pathlib import PurePath

    from reverie.engine.owners.export import export_document

    if not json_output:
        fail(
            "give --json (a copy as a new workspace folder: "
            "reverie principal export NAME --to DIR, or reverie store export DIR)"
        )
    with engine(ctx, workspace, read_only=True) as memory:
        document = export_document(memory, PurePath(memory.location.rstrip("/")).name)
    emit_json(document)


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    for command in (history, search, recall, sessions, status, cost, doctor, export):
        app.command()(command)
    app.command("session")(show_session)
