"""HTML built so that text is escaped unless it says otherwise: ``Html``, ``tag``, ``esc``.

Every string that reaches a page passes through here. ``Html`` marks text that is already
markup; anything else (a memory line, a session message, a commit subject, a search snippet)
is escaped when it is joined into an ``Html``, so a memory line is never HTML. Attribute values
are always escaped, quotes included. Building a page is string concatenation of ``Html``
values; nothing here parses or sanitises markup, which is why nothing else may build tags.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta


class Html(str):
    """A string that is markup already (the result of ``tag``, ``esc`` or ``join``)."""

    __slots__ = ()


def esc(value: object) -> Html:
    """Escape ``value``'s text (``&``, ``<``, ``>``, both quotes); ``Html`` passes unchanged."""
    if isinstance(value, Html):
        return value
    return Html(html.escape(str(value), quote=True))


def join(children: Iterable[object], sep: str = "") -> Html:
    """Concatenate children, escaping every one that is not ``Html`` (None is skipped)."""
    return Html(esc(sep).join(esc(child) for child in children if child is not None))


def tag(name: str, /, *children: object, **attrs: object) -> Html:
    """Return ``<name attrs>children</name>``; ``class_`` is ``class``, ``data_x`` is ``data-x``.

    An attribute set to True is written bare, to False or None left out; every other value is
    escaped. ``name`` and the attribute names come from code, never from data.
    """
    parts = [name]
    for key, value in attrs.items():
        if value is None or value is False:
            continue
        attr = key.rstrip("_").replace("_", "-")
        parts.append(attr if value is True else f'{attr}="{esc(value)}"')
    opening = f"<{' '.join(parts)}>"
    if name in _VOID:
        return Html(opening)
    return Html(f"{opening}{join(children)}</{name}>")


def ago(then: datetime | None, now: datetime) -> str:
    """A short, human age (``just now``, ``5 min``, ``3 h``, ``12 d``, ``2026-01-04``)."""
    if then is None:
        return "?"
    delta = now - then
    if delta < timedelta(minutes=1):
        return "just now"
    if delta < timedelta(hours=1):
        return f"{int(delta.total_seconds() // 60)} min"
    if delta < timedelta(days=1):
        return f"{int(delta.total_seconds() // 3600)} h"
    if delta < timedelta(days=60):
        return f"{delta.days} d"
    return f"{then:%Y-%m-%d}"


def in_utc(moment: datetime) -> datetime:
    """``moment`` in UTC, the viewer's one time zone (a naive moment is taken as UTC)."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def stamp(moment: datetime | None) -> str:
    """A moment as ``YYYY-MM-DD HH:MM UTC`` on every page, as the CLI shows it ('' when absent).

    Whatever offset a source wrote (a session message in +02:00, a commit in local time), the
    viewer shows the same instant the same way.
    """
    return "" if moment is None else f"{in_utc(moment):%Y-%m-%d %H:%M} UTC"


_VOID = frozenset({"br", "hr", "input", "meta", "link", "img"})
