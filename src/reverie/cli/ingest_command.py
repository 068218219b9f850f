"""``reverie ingest PATH...``: import past conversations, with a progress bar and a summary.

It calls ``MemoryEngine.ingest(paths, on_progress=...)``, which reports ``on_progress(stage,
done, total)``; each stage (records read, messages replayed, told every 100 inside a long
conversation, entries dreamt, vectors encoded) gets its own bar on stderr, so a long run shows
it moving. Off a terminal nothing is drawn (rich draws no live display there): stdout has the
summary alone. The summary says what was added and skipped, how much history and how many dream
commits it made, in which mode, and lists every record that could not be imported (those do not
fail the command).
"""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from reverie.cli.context import WorkspaceOption, engine
from reverie.cli.render import emit_json, err, out

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID
    from rich.text import Text

    from reverie.memory.ingest.run import IngestReport
    from reverie.memory.ingest.run import Progress as ProgressCallback


def ingest(
    ctx: typer.Context,
    paths: Annotated[list[Path], typer.Argument(help="Files or folders to import.", exists=True)],
    *,
    workspace: WorkspaceOption = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    no_wait: Annotated[
        bool, typer.Option("--no-wait", help="Exit if another ingest runs here, do not queue.")
    ] = False,
) -> None:
    """Import past conversations (nanobot, ChatGPT export, OpenAI-format JSON/JSONL).

    One ingest runs per workspace at a time: a second one waits for the first to finish
    (or, with --no-wait, exits with status 1). Rerun after a crash: it finishes the job.
    """
    from rich.text import Text

    with engine(ctx, workspace, create=True) as memory, _bars() as bars:
        report = memory.ingest(paths, on_progress=_progress(bars), wait=not no_wait)
    if json_output:
        emit_json(report)
        return
    out().print(summary_line(report), soft_wrap=True)
    for problem in report.problems:
        err().print(Text("skipped ", style="yellow") + problem.describe(), soft_wrap=True)
    for note in report.notes:
        err().print(Text(note, style="yellow"), soft_wrap=True)
    if report.undreamt:
        err().print(Text(undreamt_line(report), style="yellow"), soft_wrap=True)


def undreamt_line(report: "IngestReport") -> str:
    """Why some history entries still wait for dream after an import, and what happens next."""
    why = {
        "busy": "another process holds the dream",
        None: "the ingest reached its limit of dream runs",
    }.get(report.dream_stopped, f"the last dream run ended {report.dream_stopped}")
    return (
        f"{report.undreamt} history entr(ies) still wait for dream ({why}); the next dream "
        "(`reverie dream`, or the schedule) curates them"
    )


def _bars() -> "Progress":
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
    )

    return Progress(
        SpinnerColumn(),
        TextColumn("{task.description:<12}"),
        BarColumn(),
        MofNCompleteColumn(),
        console=err(),
        transient=True,
    )


def _progress(bars: "Progress") -> "ProgressCallback":
    tasks: dict[str, TaskID] = {}

    def on_progress(stage: str, done: int, total: int) -> None:
        if stage == "wait":
            err().print("another ingest is running on this workspace; waiting for it to finish")
            return
        if stage not in tasks:
            tasks[stage] = bars.add_task(stage, total=total or None)
        bars.update(tasks[stage], completed=done, total=total or None)

    return on_progress


def summary_line(report: "IngestReport") -> "Text":
    """One line saying what an import did and in which mode."""
    from rich.text import Text

    records = (
        f"; {report.records_skipped} non-message record(s) skipped"
        if report.records_skipped
        else ""
    )
    return Text(
        f"imported {report.sessions} session(s): {report.messages_added} message(s) added, "
        f"{report.messages_skipped} already there; {report.entries} history entr(ies), "
        f"{report.dream_runs} dream run(s), {report.commits} commit(s) ({report.mode}); "
        f"{len(report.problems)} problem(s){records}; {report.seconds:.1f}s"
        + (f"; {report.replaced} invalid character(s) replaced" if report.replaced else ""),
        style="green",
    )


def register(app: typer.Typer) -> None:
    """Add this module's command to ``app``."""
    app.command()(ingest)
