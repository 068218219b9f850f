"""Reading the times import sources write into timezone-aware datetimes.

Sources write epoch seconds (ChatGPT's ``create_time``, some OpenAI-style logs) or ISO 8601
text, with or without a zone. Epoch seconds are UTC instants. A time without a zone is a
wall-clock time in ``local_tz`` (the system's zone when None), as nanobot writes them. A value
that is not a time gives None, never an exception: a missing time is not a broken record.
No I/O.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, tzinfo

from reverie.core.clock import read_iso
from reverie.core.messages import JSONValue

# Beyond these, a number is not plausibly epoch seconds (year ~1970 to ~2100).
_EPOCH_MIN, _EPOCH_MAX = 0.0, 4_102_444_800.0


def read_time(value: JSONValue, *, local_tz: tzinfo | None = None) -> datetime | None:
    """Return ``value`` (epoch seconds or ISO 8601 text) as an aware datetime, or None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return _epoch(float(value))
    return read_iso(value, local_tz) if isinstance(value, str) else None


def _epoch(seconds: float) -> datetime | None:
    if math.isnan(seconds) or not _EPOCH_MIN <= seconds <= _EPOCH_MAX:
        return None
    return datetime.fromtimestamp(seconds, UTC)
