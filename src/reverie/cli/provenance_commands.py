"""``why`` and ``forget``: where a remembered line came from, and removing a fact entirely.

``why TEXT`` lists the durable lines matching TEXT with, for each, the history entries and
session messages it came from (or that a person wrote it). ``forget TEXT`` shows everything
it would remove and asks first; ``--yes`` skips the question, and without a terminal to ask
on it refuses unless ``--yes`` is given. ``--purge`` also rewrites the audit history and
scrubs every file, so no byte of the text is left in the workspace.
"""

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from reverie.cli.context import WorkspaceOption, engine
from reverie.cli.failure import fail
from reverie.cli.render import agreed, emit_json, err, notice, one_line, out, when
from reverie.errors import AuditError, StorageError

if TYPE_CHECKING:  # imported where used: the command line starts without them
    from reverie.memory.provenance import ForgetPlan, ForgetReport, LineProvenance, SourceEntry

JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON.")]
Query = Annotated[str, typer.Argument(help="Text to look for in the durable lines.")]


def why(
    ctx: typer.Context,
    text: Query,
    *,
    workspace: WorkspaceOption = None,
    json_output: JsonFlag = False,
) -> None:
    """Show the durable lines matching TEXT and the entries and messages they came from."""
    with engine(ctx, workspace) as memory:
        try:
            report = memory.why(text)
        except ValueError as exc:
            fail(str(exc))
    if json_output:
        emit_json(report.to_json())
        return
    if not report.lines:
        notice(f"no durable line matches {text!r}")
        return
    for line in report.lines:
        _print_line(line)


def _print_line(line: "LineProvenance") -> None:
    console = out()
    from rich.text import Text

    console.print(Text(f"{line.file}:{line.number}  {line.text.strip()}", style="bold"))
    if line.origin == "hand":
        console.print("  edited by hand (no dream run wrote this line)", soft_wrap=True)
        return
    console.print(
        f"  written by dream {when(line.first_written)}, last {when(line.last_written)}",
        soft_wrap=True,
    )
    for entry in line.entries:
        _print_entry(entry)


def _print_entry(entry: "SourceEntry") -> None:
    console = out()
    where = entry.session_key or "no session"
    text = "(no longer in history)" if entry.text is None else one_line(entry.text, 120)
    console.print(f"  entry #{entry.cursor}  {when(entry.time)}  {where}: {text}", soft_wrap=True)
    for message in entry.messages:
        said = "(gone)" if message.text is None else one_line(message.text, 120)
        console.print(
            f"    {message.session_key}#{message.index}  {when(message.time)}  "
            f"{message.role}: {said}",
            soft_wrap=True,
        )


def forget(
    ctx: typer.Context,
    text: Query,
    *,
    workspace: WorkspaceOption = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask; forget.")] = False,
    purge: Annotated[
        bool, typer.Option("--purge", help="Also rewrite the audit history; leave no trace.")
    ] = False,
    json_output: JsonFlag = False,
    broad: Annotated[
        bool,
        typer.Option(
            "--broad",
            help="Go ahead although the text matches more than one fact (no word of its own, "
            "inside longer words, many lines or messages); read the plan first.",
        ),
    ] = False,
) -> None:
    """Remove a fact and everything it came from or led to (asks first)."""
    with engine(ctx, workspace) as memory:
        try:
            plan = memory.forget_plan(text)
        except ValueError as exc:
            fail(str(exc))
        if plan.empty and not purge:
            notice(f"nothing holds {text!r}; nothing to forget")
            if json_output:
                emit_json({**plan.to_json(), "commit": None, "purge": None})
            return
        refusal = plan.broad_refusal()
        if refusal is not None and not broad:
            _print_plan(plan, purge=purge)
            fail(refusal)
        if not yes and not _confirmed(plan, purge=purge):
            notice("nothing forgotten")  # the person's answer, not an error: exit 0
            return
        with err().status("forgetting…"):
            try:
                report = memory.forget(text, purge=purge, confirm_broad=broad)
            except (StorageError, AuditError) as exc:  # a full disk, a failing git
                fail(
                    f"{exc} (what was removed stays removed; run the same forget again once "
                    "that is fixed: it finishes the rest)"
                )
    if json_output:
        emit_json(report.to_json())
    else:
        _print_report(report)
    if report.purge is not None and not report.purge.clean:
        raise typer.Exit(1)


def _confirmed(plan: "ForgetPlan", *, purge: bool) -> bool:
    """Show the plan and ask; False when the person answered no (nothing is changed)."""
    if not sys.stdin.isatty():
        fail("forget asks before deleting, but there is no terminal to ask on; pass --yes")
    _print_plan(plan, purge=purge)
    return agreed("Forget all of this?")


def _print_plan(plan: "ForgetPlan", *, purge: bool) -> None:
    console = err()
    from rich.text import Text

    console.print(Text(f"forget {plan.query!r} removes {plan.describe()}:", style="bold"))
    for line in plan.lines:
        why = "" if line.reason == "matches" else "  (came only from forgotten entries)"
        console.print(f"  line    {line.file}:{line.number}  {line.text.strip()}{why}")
    for entry in plan.entries:
        action = "remove" if entry.removed else "cut from"
        console.print(f"  entry   {action} #{entry.cursor}: {one_line(entry.text, 100)}")
    for message in plan.messages:
        console.print(
            f"  message {message.session_key}#{message.index} {message.role}: "
            f"{one_line(message.text, 100)}"
        )
    for key in plan.summaries:
        console.print(f"  summary of {key}")
    if purge:
        console.print("  and every trace in the audit history, side files and the search index")


def _print_report(report: "ForgetReport") -> None:
    commit = "" if report.commit is None else f" (commit {report.commit[:7]})"
    out().print(f"forgot {report.plan.describe()}{commit}", soft_wrap=True)
    if report.purge is None:
        return
    if report.purge.clean:
        out().print(
            f"purged: {report.purge.commits_rewritten} commit(s) rewritten; no trace is left",
            soft_wrap=True,
        )
    else:
        places = ", ".join(report.purge.leftovers)
        notice(f"purge left the text in: {places}", style="bold red")


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    for command in (why, forget):
        app.command()(command)
