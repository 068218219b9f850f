"""Injected time: every component that stamps a time takes a ``Clock`` instead of calling now().

Tests pass a fixed or stepping clock; nothing patches ``datetime``. A clock must return a
timezone-aware datetime; ``system_clock`` returns the current UTC time.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    """Return the current time in UTC (timezone-aware)."""
    return datetime.now(UTC)


def require_aware(moment: datetime) -> datetime:
    """Return ``moment`` unchanged, or raise ValueError when it carries no timezone."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"naive datetime {moment.isoformat()}: reverie needs timezone-aware times")
    return moment
