"""Output plumbing of the CLI: the two consoles, JSON output, and small text formatters.

Human output goes through rich to stdout; progress, notices and errors go to stderr, so a
command's stdout can be piped. ``--json`` output is written with ``typer.echo`` (never through
rich, which would wrap long lines): one JSON document, dates as ISO 8601 text.

A question before a destructive step goes through ``agreed``: the answer defaults to no, and
a "no" is the person's answer, not an error: the command says plainly what it left alone
(``notice``) and exits 0 (``forget``, ``principal delete``).

This module formats values; it never opens a workspace or calls the engine.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

import typer

from reverie.core.clock import wall_clock
from reverie.core.json_data import jsonable

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text


MODEL_FREE_TAG = "(model-free)"


def out() -> Console:
    """The console for results (stdout); no automatic highlighting of numbers or paths.

    No markup or emoji codes either: what reverie prints holds text it did not write
    (session keys, file lines, ``pip install 'reverie[embeddings]'``), and rich would eat
    ``[...]`` as a tag and ``:thread:`` as an emoji; a style is given with ``Text``. A new
    console each time: it reads the terminal and ``COLUMNS`` as they are now.
    """
    from rich.console import Console

    return Console(highlight=False, markup=False, emoji=False)


def err() -> Console:
    """The console for progress, notices and errors (stderr)."""
    from rich.console import Console

    return Console(stderr=True, highlight=False, markup=False, emoji=False)


def emit_json(value: object) -> None:
    """Print ``value`` as one indented JSON document on stdout."""
    import json  # only ``--json`` output needs it

    typer.echo(json.dumps(jsonable(value), ensure_ascii=False, indent=2))


def agreed(question: str) -> bool:
    """Ask ``question`` on stderr (default no); False when the person answered no.

    The caller answers a "no" with a plain ``notice`` of what it left alone and exit 0.
    """
    return typer.confirm(question, default=False, err=True)


def notice(message: str, style: str = "dim") -> None:
    """Print one line of progress or information on stderr."""
    from rich.text import Text

    err().print(Text(message, style=style), soft_wrap=True)


def when(moment: datetime | None) -> str:
    """A time in local wall-clock form (``2026-11-30 14:05``), or ``-``."""
    return "-" if moment is None else wall_clock(moment)


def commit_mode(subject: str) -> str:
    """Which mode made an audit commit: ``model``, ``model-free``, or ``-`` (not a dream)."""
    if not subject.startswith("dream:"):
        return "-"
    return "model-free" if subject.endswith(MODEL_FREE_TAG) else "model"


def one_line(text: str, limit: int = 100) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def snippet(text: str) -> Text:
    """A search snippet with its matched terms in bold."""
    from rich.text import Text

    from reverie.core.hits import SNIPPET_CLOSE, SNIPPET_OPEN

    result = Text()
    bold = False
    for part in text.replace(SNIPPET_CLOSE, SNIPPET_OPEN).split(SNIPPET_OPEN):
        result.append(" ".join(part.split("\n")), style="bold yellow" if bold else "")
        bold = not bold
    return result


def print_diff(diff: str) -> None:
    """Print a unified diff: highlighted on a terminal, plain text otherwise (for patches)."""
    if not diff:
        return
    if out().is_terminal:
        from rich.syntax import Syntax

        out().print(Syntax(diff, "diff", theme="ansi_dark", word_wrap=True))
    else:
        typer.echo(diff.rstrip("\n"))
