"""The overview page: the three durable files, each line with its age and origin, and status.

Lines are rendered Markdown-ish (headings, bullets, blank lines) from escaped text; a line is
a ``<details>`` whose summary is the line and its age, and whose body says which audit commit
last added it, by whom and when, with a link to the diff and to its provenance when the
viewer is wired to a provenance hook (else it says provenance is not available). A line's
``/why`` page also offers to forget it (``reverie.viewer.forgetting``).
"""

from __future__ import annotations

import re
from datetime import datetime

from reverie.core.audit import LineOrigin
from reverie.core.durable import RELATIVE_PATHS
from reverie.memory.status import Status
from reverie.viewer.chart import day_chart
from reverie.viewer.forgetting import forget_form
from reverie.viewer.layout import View, page
from reverie.viewer.markup import Html, ago, join, stamp, tag

_HEADING = re.compile(r"(#{1,6})\s+(.*)")
_BULLET = re.compile(r"(\s*)[-*+]\s+(.*)")
NOTES = {"saved": "Saved: your edit is a new commit.", "unchanged": "Nothing changed: no commit."}


def line_kind(line: str) -> tuple[str, str]:
    """Classify a Markdown line: (``h1``/``h2``/``h3``/``bullet``/``bullet2``/``text``, text)."""
    heading = _HEADING.fullmatch(line)
    if heading is not None:
        return f"h{min(3, len(heading.group(1)))}", heading.group(2)
    bullet = _BULLET.fullmatch(line)
    if bullet is not None:
        return ("bullet2" if len(bullet.group(1)) >= 2 else "bullet"), bullet.group(2)
    return "text", line


def overview(view: View) -> Html:
    """The whole overview page."""
    now = view.engine.clock()
    every = view.engine.line_origins(*RELATIVE_PATHS.values())
    cards = [file_card(view, path, origins, now) for path, origins in every.items()]
    body = join([status_card(view, view.engine.status()), *cards])
    return page(
        view,
        "What the agent remembers",
        body,
        here="overview",
        notice=NOTES.get(view.query.get("note", ""), ""),
    )


def file_card(view: View, path: str, origins: tuple[LineOrigin, ...], now: datetime) -> Html:
    """One durable file, rendered line by line with ages."""
    lines = [_line(view, path, origin, now) for origin in origins]
    if not lines:
        lines = [tag("p", "(empty)", class_="muted")]
    title = tag(
        "h2",
        tag("code", path),
        tag("a", "Edit", href=view.url("/edit", path=path), class_="button quiet"),
    )
    return tag("section", title, *lines, class_="card file", id=f"file-{path}")


def _line(view: View, path: str, origin: LineOrigin, now: datetime) -> Html:
    if not origin.line.strip():
        return tag("div", class_="blank")
    kind, text = line_kind(origin.line)
    age = ago(origin.time, now) if origin.sha else "not committed"
    summary = tag(
        "summary",
        tag("span", text, class_="text"),
        tag("span", age, class_="age", title=stamp(origin.time)),
    )
    return tag(
        "details",
        summary,
        tag("div", *_origin(view, path, origin), class_="origin"),
        class_=f"line l-{kind}",
    )


def _origin(view: View, path: str, origin: LineOrigin) -> list[Html]:
    if origin.sha is None:
        said = tag("div", "Not in any commit yet: it was written to the file after the last one.")
    else:
        when = ("at or before " if origin.at_or_before else "") + stamp(origin.time)
        author = origin.author.split(" <", 1)[0]
        said = tag(
            "div",
            f"Last added {when} by {author} in ",
            tag("a", origin.short, href=view.url(f"/commit/{origin.sha}"), class_="mono"),
            f" ({origin.subject}).",
        )
    if view.provenance is None:
        why = tag("div", "Provenance: not available in this viewer.")
    else:
        why = tag(
            "div",
            tag(
                "a",
                "Where does this line come from?",
                href=view.url("/why", path=path, line=origin.line),
            ),
        )
    return [said, why]


def why_page(view: View) -> Html:
    """What the provenance hook says about one line, and the button that offers to forget it."""
    path, line = view.query.get("path", ""), view.query.get("line", "")
    if view.provenance is None:
        said = [tag("p", "Provenance is not available in this viewer.")]
    else:
        said = [tag("p", text) for text in view.provenance(path, line)] or [
            tag("p", "No source was found for this line.", class_="muted")
        ]
    quoted = tag("blockquote", line, class_="card text")
    body = join([tag("p", tag("code", path)), quoted, *said, forget_form(view, path, line)])
    return page(view, "Where a line comes from", body, here="overview")


def status_card(view: View, status: Status) -> Html:
    """Mode, pending entries, last and next dream, ledger totals and tokens by day."""
    table = tag("table", *[tag("tr", tag("th", k), tag("td", v)) for k, v in _facts(status)])
    head = tag("tr", tag("th", "job"), tag("th", "calls"), tag("th", "tokens"))
    rows = [
        tag("tr", tag("td", job), tag("td", t.calls), tag("td", f"{t.tokens_in + t.tokens_out:,}"))
        for job, t in sorted(status.ledger.items())
    ]
    chart = join([tag("h2", "Memory-job tokens by day"), day_chart(view.engine.costs().by_day)])
    left = tag("div", tag("h2", "Status"), table)
    right = tag("div", tag("h2", "Ledger"), tag("table", head, *rows), chart)
    return tag("section", tag("div", left, right, class_="grid"), class_="card status")


def _facts(status: Status) -> list[tuple[str, str]]:
    dream = status.last_dream
    last = f"{stamp(dream.last_attempt)} ({dream.last_outcome})" if dream.last_attempt else "never"
    due = "due now" if status.next_dream.run else "not due"
    oldest = f", oldest {stamp(status.oldest_pending)}" if status.oldest_pending else ""
    return [
        ("mode", f"{status.mode} (chat: {status.chat_model}, memory: {status.memory_model})"),
        ("pending entries", f"{status.pending_entries}{oldest}"),
        ("last dream", last),
        ("next dream", f"{due}: {status.next_dream.reason}"),
        ("cursors", f"history {status.last_cursor}, dream {status.dream_cursor}"),
        ("sessions", str(status.sessions)),
    ]
