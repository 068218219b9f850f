"""Rich renderings of the memory results: dream runs, background passes, commits and costs.

Each function turns one engine result into something rich can print; none of them computes
anything the engine did not report (the mode of a commit is read from its subject, where dream
writes it). The ``--json`` forms are the results themselves (``render.jsonable``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from reverie.cli.render import commit_mode, one_line, when

if TYPE_CHECKING:
    # Types only: ``status`` renders without importing dream's runner or git (dulwich).
    from reverie.core.audit import CommitDetail, CommitInfo, FileChange
    from reverie.core.ledger import JobTotals, LedgerSummary
    from reverie.engine.maintenance import MaintenancePass
    from reverie.memory.dream.result import DreamResult


def dream_line(result: DreamResult) -> Text:
    """One line saying how a dream run ended, in which mode, and what it changed."""
    mode = f"{result.mode}, trigger {result.trigger}"
    if result.outcome == "no_pending":
        return Text(f"nothing to dream: {result.reason}")
    if result.outcome == "busy":
        return Text(f"dream skipped: {result.reason}", style="yellow")
    if result.failed:
        return Text(f"dream {result.outcome} ({mode}): {result.reason}", style="bold red")
    files = ", ".join(result.files_changed) or "no file"
    verb = "would change" if result.dry_run else "changed"
    entries = "1 entry" if result.entries == 1 else f"{result.entries} entries"
    line = f"dream {'dry run' if result.dry_run else 'completed'} ({mode}): {entries}, "
    line += f"cursor {result.cursor_before} -> {result.cursor_after}, {verb} {files}"
    if result.commit:
        line += f"; commit {result.commit[:7]}"
    if result.model_calls:
        line += f"; {result.model_calls} model calls, {result.tokens} tokens"
    for rejected in result.rejected:
        line += f"\nrejected rule for {rejected.file} ({rejected.reason}): {rejected.rule}"
    return Text(line, style="green")


def commits_table(commits: list[CommitInfo]) -> Table:
    """The audit log, newest first, with the mode that made each dream commit."""
    table = Table(box=None, pad_edge=False)
    for name in ("commit", "time", "mode", "subject", "changes"):
        table.add_column(name, no_wrap=name in ("commit", "time", "mode", "changes"))
    # One changed file per line: a file and its counts never break across lines.
    for info in commits:
        table.add_row(
            Text(info.short, style="yellow"),
            when(info.time),
            commit_mode(info.subject),
            info.subject,
            _changes(info.files),
        )
    return table


def commit_header(detail: CommitDetail) -> RenderableType:
    """The head of ``show``: sha, time, mode, subject and the changed files."""
    info = detail.info
    lines = [
        Text(f"commit {info.sha}", style="yellow"),
        Text(f"date   {info.time.isoformat()}"),
        Text(f"mode   {commit_mode(info.subject)}"),
        Text(""),
        Text(f"    {info.subject}", style="bold"),
        Text(""),
    ]
    lines += [Text(f"  {_changes((change,))}") for change in info.files]
    return Group(*lines)


def _changes(files: tuple[FileChange, ...]) -> str:
    return "\n".join(f"{f.path} +{f.added} -{f.removed}" for f in files) or "no change"


def restore_line(info: CommitInfo, *, rev: str, made: bool) -> Text:
    """What a restore did: the commit it made, or that the files already were as asked."""
    if not made:
        return Text(f"nothing to restore: the files are already as of {rev} (no commit made)")
    return Text(f"{one_line(info.subject)} -> commit {info.short}", style="green")


def cost_view(summary: LedgerSummary) -> RenderableType:
    """The ledger by job, then by day and job."""
    if not summary.by_job and not summary.unreadable:
        return Text("no memory job has run yet")
    by_job = _totals_table("job", sorted(summary.by_job.items()))
    by_day = _totals_table(
        "day / job", [(f"{day} {job}", t) for (day, job), t in sorted(summary.by_day.items())]
    )
    parts: list[RenderableType] = [by_job, Text(""), by_day]
    if summary.unreadable:
        parts.append(Text(f"{summary.unreadable} ledger line(s) unreadable", style="yellow"))
    return Group(*parts)


def _totals_table(first: str, rows: list[tuple[str, JobTotals]]) -> Table:
    table = Table(box=None, pad_edge=False)
    table.add_column(first)
    for name in ("calls", "tokens in", "tokens out"):
        table.add_column(name, justify="right")
    table.add_column("outcomes")
    for name, totals in rows:
        outcomes = ", ".join(f"{k} {v}" for k, v in sorted(totals.outcomes.items()))
        table.add_row(
            name, str(totals.calls), str(totals.tokens_in), str(totals.tokens_out), outcomes
        )
    return table


def maintenance_lines(done: MaintenancePass) -> list[Text]:
    """What a background pass did, one line each (none when it did nothing worth telling)."""
    # Here, not at the top: ``status`` renders with this module and needs neither.
    from reverie.cli.failure import describe
    from reverie.cli.record_views import compaction_line

    compactions, dream = done.noteworthy()
    lines = [Text("idle ") + compaction_line(key, result) for key, result in compactions.items()]
    if dream is not None:
        lines.append(dream_line(dream))
    if done.error is not None:
        lines.append(Text(f"background: {describe(done.error)}", style="yellow"))
    return lines
