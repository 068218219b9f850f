"""The timeline: audit commits (dream, edit, restore) and history entries, newest first.

Filters: one session (its history entries only; commits are workspace-wide and left out),
a date range (``since``/``until``, inclusive days), or ``cursor`` to show the entries around
one history entry (search results link there). Each commit links to its diff page; each entry
shows its session, kind (compaction summary, raw fallback, import) and text.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime

from reverie.core.audit import CommitInfo
from reverie.core.entries import HistoryEntry
from reverie.core.marks import without_marks
from reverie.viewer.layout import View, page
from reverie.viewer.markup import Html, in_utc, join, stamp, tag

MAX_COMMITS = 100
MAX_ENTRIES = 300
_UNDATED = datetime(1970, 1, 1, tzinfo=UTC)
KIND_LABELS = {"summary": "compaction", "raw": "compaction (raw)", "import": "import"}


@dataclass(frozen=True, slots=True, kw_only=True)
class Window:
    """The filters of one timeline request (None: not set)."""

    session: str | None
    since: date | None
    until: date | None
    cursor: int | None

    def holds(self, moment: datetime | None) -> bool:
        """Whether a moment falls in the date range (an undated item is always shown)."""
        if moment is None:
            return True
        day = in_utc(moment).date()  # the dates of the stamps shown (UTC)
        return not ((self.since and day < self.since) or (self.until and day > self.until))


def commit_kind(subject: str) -> str:
    """``dream``, ``edit``, ``restore``, ``init`` or ``other``, from a commit subject."""
    head = subject.split(":", 1)[0]
    return head if head in ("dream", "edit", "restore", "init", "snapshot") else "other"


def entry_time(entry: HistoryEntry) -> datetime | None:
    """The entry's precise time, else its ``YYYY-MM-DD HH:MM`` stamp read as local time."""
    if entry.time is not None:
        return entry.time
    try:
        return datetime.strptime(entry.timestamp, "%Y-%m-%d %H:%M").astimezone()
    except ValueError:
        return None


def timeline(view: View) -> tuple[Html, int]:
    """The page and its status (400 when a filter is unreadable)."""
    try:
        window = _window(view)
    except ValueError as exc:
        return page(view, "Timeline", _filters(view), here="timeline", error=str(exc)), 400
    items: list[tuple[datetime, Html]] = []
    if window.session is None and window.cursor is None:
        for info in view.engine.log(MAX_COMMITS):
            if window.holds(info.time):
                items.append((info.time, _commit_item(view, info)))
    for entry in _entries(view, window):
        moment = entry_time(entry)
        if window.holds(moment):
            items.append((moment or _UNDATED, _entry_item(view, entry, moment)))
    items.sort(key=lambda pair: pair[0], reverse=True)
    listing = [html for _moment, html in items] or [tag("p", "Nothing in this window.")]
    return page(
        view,
        "Timeline",
        join([_filters(view), tag("div", *listing, class_="card")]),
        here="timeline",
    ), 200


def _window(view: View) -> Window:
    def day(name: str) -> date | None:
        raw = view.query.get(name, "")
        try:
            return date.fromisoformat(raw) if raw else None
        except ValueError:
            raise ValueError(f"{name} must be a date like 2026-11-30, got {raw!r}") from None

    raw_cursor = view.query.get("cursor", "")
    if raw_cursor and not raw_cursor.isdigit():
        raise ValueError(f"cursor must be a number, got {raw_cursor!r}")
    return Window(
        session=view.query.get("session") or None,
        since=day("since"),
        until=day("until"),
        cursor=int(raw_cursor) if raw_cursor else None,
    )


def _entries(view: View, window: Window) -> list[HistoryEntry]:
    if window.cursor is not None:
        return view.engine.history(since=max(0, window.cursor - 10), limit=30)
    return view.engine.history(session_key=window.session, limit=MAX_ENTRIES)


def _filters(view: View) -> Html:
    keys = [info.key for info in view.engine.sessions()]
    chosen = view.query.get("session", "")
    options = [tag("option", "all sessions", value="")] + [
        tag("option", key, value=key, selected=key == chosen) for key in keys
    ]
    fields = [
        tag("label", "Session ", tag("select", *options, name="session")),
        " ",
        tag(
            "label",
            "From ",
            tag("input", type="date", name="since", value=view.query.get("since", "")),
        ),
        " ",
        tag(
            "label",
            "to ",
            tag("input", type="date", name="until", value=view.query.get("until", "")),
        ),
        " ",
        tag("button", "Filter", type="submit"),
    ]
    return tag("form", *fields, method="get", action=view.url("/timeline"), class_="card")


def _commit_item(view: View, info: CommitInfo) -> Html:
    kind = commit_kind(info.subject)
    files = ", ".join(f"{f.path} +{f.added} -{f.removed}" for f in info.files) or "no change"
    return tag(
        "div",
        tag("span", stamp(info.time), class_="mono muted"),
        " ",
        tag("span", kind, class_=f"pill {kind}"),
        " ",
        tag("a", info.subject, href=view.url(f"/commit/{info.sha}")),
        " ",
        tag("span", f"{files} · {info.author.split(' <', 1)[0]}", class_="muted"),
        class_="entry commit",
        id=f"c-{info.short}",
    )


def _entry_item(view: View, entry: HistoryEntry, moment: datetime | None) -> Html:
    kind = KIND_LABELS.get(entry.kind or "", entry.kind or "entry")
    session = (
        tag("a", entry.session_key, href=view.url("/session", key=entry.session_key))
        if entry.session_key
        else tag("span", "no session", class_="muted")
    )
    return tag(
        "div",
        tag("span", stamp(moment) or entry.timestamp, class_="mono muted"),
        " ",
        tag("span", kind, class_="pill compaction"),
        " ",
        tag("span", f"#{entry.cursor}", class_="mono"),
        " ",
        session,
        tag("div", without_marks(entry.content), class_="text"),
        class_="entry history",
        id=f"e-{entry.cursor}",
    )
