"""Injected time: every component that stamps a time takes a ``Clock`` instead of calling now().

Tests pass a fixed or stepping clock; nothing patches ``datetime``. A clock must return a
timezone-aware datetime; ``system_clock`` returns the current UTC time. ``wall_clock`` is the
one formatter of nanobot's ``YYYY-MM-DD HH:MM`` form: any aware time from year 1 to 9999
formats and converts without error. ``aware`` and ``read_iso`` read the times other programs
wrote (nanobot writes local wall-clock times without a zone); importers and the nanobot session
reader share them.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, tzinfo

from reverie.errors import InputError

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    """Return the current time in UTC (timezone-aware)."""
    return datetime.now(UTC)


def require_aware(moment: datetime) -> datetime:
    """Return ``moment`` unchanged; raise InputError (a ValueError) when it has no timezone."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise InputError(f"naive datetime {moment.isoformat()}: reverie needs timezone-aware times")
    return moment


def local_time(moment: datetime) -> datetime:
    """Return ``moment`` in this system's zone (in its own zone where the shift cannot be held).

    At the edges of the calendar (year 1 or 9999) a shift can leave the range ``datetime``
    holds; such a time stays in its own zone rather than failing. A naive ``moment`` is read
    as local time, as ``astimezone`` does.
    """
    try:
        return moment.astimezone()
    except (OverflowError, ValueError):
        return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def aware(moment: datetime, local_tz: tzinfo | None) -> datetime:
    """Return ``moment`` with a zone: unchanged when it has one, else read in ``local_tz``.

    ``local_tz`` None means this system's zone (nanobot writes local times without a zone).
    """
    if moment.tzinfo is not None and moment.utcoffset() is not None:
        return moment
    return moment.replace(tzinfo=local_tz) if local_tz is not None else local_time(moment)


def read_iso(text: str, local_tz: tzinfo | None) -> datetime | None:
    """Read ISO 8601 ``text`` (with or without a zone, ``Z`` too) as an aware time, or None."""
    try:
        return aware(datetime.fromisoformat(text.strip()), local_tz)
    except ValueError:
        return None


def wall_clock(moment: datetime, *, local: bool = True) -> str:
    """Format ``moment`` as ``YYYY-MM-DD HH:MM`` (local time by default), year in four digits.

    ``strftime("%Y")`` writes year 1 as ``1`` on some platforms, which no reader parses back:
    a message dated in year 1 must read like any other.
    """
    shown = local_time(moment) if local else moment
    return f"{shown.year:04d}-{shown.month:02d}-{shown.day:02d} {shown.hour:02d}:{shown.minute:02d}"


def parse_wall_clock(text: str) -> datetime | None:
    """Read nanobot's local ``YYYY-MM-DD HH:MM`` back as an aware time (None if it is not one)."""
    try:
        naive = datetime.strptime(text, "%Y-%m-%d %H:%M")  # noqa: DTZ007 -- local by format
    except ValueError:
        return None
    return local_time(naive)


def from_epoch(seconds: float) -> datetime:
    """Return the UTC time ``seconds`` after the epoch, clamped to the years 1 to 9999.

    An aware time at the calendar's edge (``9999-12-31T23:59-05:00``) is later than the last
    UTC time ``datetime`` holds; it reads back as that last time instead of failing.
    """
    try:
        return datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, ValueError, OSError):
        return datetime.max.replace(tzinfo=UTC) if seconds > 0 else datetime.min.replace(tzinfo=UTC)
