"""Rich renderings of what memory holds: history entries, search hits, sessions, doctor.

Tables for people; the ``--json`` forms are the values themselves (``render.jsonable``).
Nothing here reads a workspace.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.table import Table
from rich.text import Text

from reverie.cli.render import one_line, snippet, when
from reverie.core.entries import HistoryEntry
from reverie.core.hits import SearchHit
from reverie.core.marks import without_marks
from reverie.core.session import Session, SessionInfo
from reverie.memory.compaction.result import CompactionResult
from reverie.memory.doctor import DoctorReport


def key_column(table: Table, name: str, values: Sequence[str], *, style: str = "") -> None:
    """A column of identifiers (session keys, sources): never wrapped or cut.

    A key shown is a key that can be copied; the other columns wrap around it.
    """
    width = max((len(value) for value in values), default=len(name))
    table.add_column(name, style=style, no_wrap=True, min_width=max(width, len(name)))


class Keyed:
    """Rows of a key and a text: a table, or blocks on a terminal too narrow for both.

    A block is the key and the other short fields on one line, the text below it, indented.
    Keys stay whole either way.
    """

    def __init__(self, table: Table, blocks: list[Text], key_width: int) -> None:
        self.table = table
        self.blocks = blocks
        self.key_width = key_width

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        """The table when the key takes at most a third of the width, else the blocks."""
        if self.key_width * 3 <= options.max_width:
            yield self.table
            return
        yield from self.blocks


def _block(head: str, fields: Sequence[str], text: str | Text) -> Text:
    block = Text(head, style="yellow")
    block.append("  " + "  ".join(fields) + "\n")
    block.append("    ")
    block.append(text)
    block.append("\n")
    return block


def history_table(entries: Sequence[HistoryEntry]) -> Keyed:
    """History entries, oldest first: cursor, time, session, kind and the text on one line."""
    table = Table(box=None, pad_edge=False)
    table.add_column("cursor", justify="right", style="yellow")
    table.add_column("time", no_wrap=True)
    key_column(table, "session", [entry.session_key or "-" for entry in entries])
    table.add_column("kind")
    table.add_column("content")
    for entry in entries:
        table.add_row(
            str(entry.cursor),
            when(entry.time) if entry.time is not None else entry.timestamp,
            entry.session_key or "-",
            entry.kind or "-",
            one_line(without_marks(entry.content), 160),
        )
    blocks = [
        _block(
            f"#{entry.cursor}",
            [
                when(entry.time) if entry.time is not None else entry.timestamp,
                entry.session_key or "-",
                entry.kind or "-",
            ],
            one_line(without_marks(entry.content), 160),
        )
        for entry in entries
    ]
    return Keyed(table, blocks, max((len(e.session_key or "-") for e in entries), default=1))


def hits_table(hits: Sequence[SearchHit]) -> Keyed:
    """Search hits, best first, each with its source (history cursor or session message)."""
    table = Table(box=None, pad_edge=False)
    key_column(table, "source", [hit_source(hit) for hit in hits], style="yellow")
    table.add_column("time", no_wrap=True)
    table.add_column("score", justify="right")
    table.add_column("snippet")
    for hit in hits:
        table.add_row(
            hit_source(hit), when(hit.timestamp), f"{hit.score:.2f}", snippet(hit.snippet)
        )
    blocks = [
        _block(hit_source(hit), [when(hit.timestamp), f"{hit.score:.2f}"], snippet(hit.snippet))
        for hit in hits
    ]
    return Keyed(table, blocks, max((len(hit_source(hit)) for hit in hits), default=1))


def hit_source(hit: SearchHit) -> str:
    """Where a hit comes from: ``history #12`` or ``cli:default #4 user``."""
    if hit.kind == "history":
        return f"history #{hit.cursor}" + (f" ({hit.session_key})" if hit.session_key else "")
    return f"{hit.session_key} #{hit.message_index} {hit.role}"


def sessions_table(sessions: Sequence[SessionInfo]) -> Table:
    """Every session: messages, how many are not compacted yet, last activity, journal size."""
    table = Table(box=None, pad_edge=False)
    key_column(table, "session", [info.key for info in sessions], style="yellow")
    for name in ("messages", "pending"):
        table.add_column(name, justify="right")
    table.add_column("updated", no_wrap=True)
    table.add_column("size", justify="right")
    for info in sessions:
        table.add_row(
            info.key,
            str(info.message_count),
            str(info.message_count - info.compacted_upto),
            when(info.updated_at),
            f"{info.size:,} B",
        )
    return table


def doctor_view(report: DoctorReport) -> RenderableType:
    """Every finding (problems red, notes yellow), then the verdict."""
    lines = []
    for finding in report.findings:
        style = "bold red" if finding.severity == "problem" else "yellow"
        where = f" ({finding.path})" if finding.path else ""
        lines.append(
            Text.assemble((f"{finding.severity:<8}", style), f"[{finding.check}] ", finding.message)
            + Text(where, style="dim")
        )
    problems = sum(1 for f in report.findings if f.severity == "problem")
    notes = len(report.findings) - problems
    verdict = (
        Text(f"ok ({notes} note(s))", style="green")
        if report.ok
        else Text(f"{problems} problem(s), {notes} note(s)", style="bold red")
    )
    return Group(*lines, verdict)


def compaction_line(key: str, result: CompactionResult) -> Text:
    """What a compaction did to a session: the tokens its prompt carries before and after."""
    if result.outcome == "not_needed":
        return Text(f"{key}: nothing to compact")
    entries = ", ".join(f"#{entry.cursor}" for entry in result.entries) or "no entry"
    line = (
        f"{key}: {result.outcome.replace('_', ' ')}, {result.tokens_before} -> "
        f"{result.tokens_after} tokens, history {entries}"
    )
    if result.reason:
        line += f" ({result.reason})"
    elif result.tokens_after > result.tokens_before:
        line += " (the summary is longer than the short exchange it replaced)"
    style = "yellow" if result.outcome in ("raw_fallback", "busy", "no_cut") else "green"
    return Text(line, style=style)


def session_lines(session: Session) -> Text:
    """A session's messages, one block each: index, time, role, then the text."""
    shown = Text()
    for index, message in enumerate(session.messages):
        mark = " (compacted)" if index < session.compacted_upto else ""
        stamp = when(message.timestamp) if message.timestamp is not None else "-"
        shown.append(f"#{index} {stamp} {message.role}{mark}\n", style="yellow")
        text = message.text or ", ".join(f"{c.name}({c.arguments})" for c in message.tool_calls)
        shown.append(f"{text}\n\n")
    return shown
