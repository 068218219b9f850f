"""``reverie status`` as plain text: a two-column grid, without rich.

``status`` is the command people run most to look at a workspace, so it starts without rich
(whose import alone is about a tenth of that start, ``bench/startup.py``). The grid is what
rich's would be: the names in a column (bold on a terminal), the values wrapped to the
terminal's width (``COLUMNS``, else 80) with their continuation lines aligned.
"""

from __future__ import annotations

import shutil
import textwrap
from typing import TYPE_CHECKING

import typer

from reverie.cli.render import when
from reverie.core.durable import RELATIVE_PATHS

if TYPE_CHECKING:
    from reverie.core.ledger import JobTotals
    from reverie.memory.status import Status


def status_rows(status: Status) -> list[tuple[str, str]]:
    """Where the workspace stands: (name, value) rows, in the order they are shown."""
    rows = [
        ("workspace", status.workspace),
        ("mode", _mode_line(status)),
        *([("settings", _sources_line(status))] if status.sources else []),
        ("history", _history_line(status)),
        ("files", _files_line(status)),
        ("sessions", str(status.sessions)),
        ("recall", status.recall),
        ("last dream", _last_dream_line(status)),
        ("next dream", _next_dream_line(status)),
        ("ledger", _totals_line(status.ledger) or "no memory job has run"),
    ]
    if status.quarantined_lines or status.ledger_unreadable:
        rows.append(("attention", _attention_line(status)))
    rows.extend(("damaged", problem) for problem in status.damaged)
    for rejection in status.rejected_rules:
        rule = rejection.rule
        rows.append(
            ("rejected rule", f"{rule.rule!r} for {rule.file}: {rule.reason} (add it by hand)")
        )
    return rows


def grid_text(rows: list[tuple[str, str]], width: int, *, bold: bool = False) -> str:
    """``rows`` as two columns two spaces apart, values wrapped within ``width``."""
    names = max((len(name) for name, _ in rows), default=0)
    room = max(20, width - names - 2)
    lines = []
    for name, value in rows:
        label = name.ljust(names)
        if bold:
            label = typer.style(name, bold=True) + " " * (names - len(name))
        wrapped = textwrap.wrap(value, room, break_on_hyphens=False) or [""]
        lines.append(f"{label}  {wrapped[0]}")
        lines.extend(" " * (names + 2) + more for more in wrapped[1:])
    return "\n".join(lines)


def print_status(status: Status) -> None:
    """Print ``status`` on stdout, as wide as the terminal."""
    width = shutil.get_terminal_size((80, 24)).columns
    typer.echo(grid_text(status_rows(status), width, bold=True))


def _mode_line(status: Status) -> str:
    jobs = status.jobs
    chat = "no chat model" if jobs["chat"] == "(none)" else f"chat {jobs['chat']}"
    if status.mode == "model":
        return f"model ({chat}; compaction {jobs['compaction']}; dream {jobs['dream']})"
    return f"model-free memory ({chat}; compaction and dream run without a model)"


def _sources_line(status: Status) -> str:
    """Where the model settings came from: the env ones flagged as this process's only."""
    told = [f"{name} from {origin}" for name, origin in status.sources if origin != "default"]
    line = "; ".join([*told, "the rest default"]) if told else "all default"
    if any(origin.startswith("REVERIE_") for _name, origin in status.sources):
        line += " (REVERIE_* is this process's only: put shared settings in reverie.toml)"
    return line


def _history_line(status: Status) -> str:
    pending = f"{status.pending_entries} pending for dream"
    if status.oldest_pending is not None:
        pending += f" (oldest {when(status.oldest_pending)})"
    return f"last cursor {status.last_cursor}, dream cursor {status.dream_cursor}, {pending}"


def _files_line(status: Status) -> str:
    return ", ".join(f"{RELATIVE_PATHS[f.name]} {f.tokens} tokens" for f in status.files)


def _last_dream_line(status: Status) -> str:
    state = status.last_dream
    if state.last_attempt is None:
        return "never"
    line = f"{when(state.last_attempt)} {state.last_outcome or ''}".strip()
    if state.consecutive_failures:
        line += f" ({state.consecutive_failures} failed in a row)"
    return line


def _next_dream_line(status: Status) -> str:
    decision = status.next_dream
    if decision.run:
        return f"due now ({decision.trigger}): {decision.reason}"
    line = f"not due: {decision.reason}"
    if decision.not_before is not None:
        line += f" (not before {when(decision.not_before)})"
    return line


def _totals_line(totals: dict[str, JobTotals]) -> str:
    return "; ".join(
        f"{job} {t.calls} calls, {t.tokens_in} in / {t.tokens_out} out"
        for job, t in sorted(totals.items())
    )


def _attention_line(status: Status) -> str:
    return (
        f"{status.quarantined_lines} quarantined line(s), "
        f"{status.ledger_unreadable} unreadable ledger line(s); see `reverie doctor`"
    )
