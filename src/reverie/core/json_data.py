"""JSON data of result values: what ``--json`` output and the MCP tools send.

Every result reverie returns is a frozen dataclass of plain values; ``jsonable`` turns one
(with its datetimes, paths, tuples and mappings) into JSON data. Surfaces share it, so
``reverie status --json`` and the MCP ``status`` tool say the same thing.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reverie.core.messages import JSONValue


def jsonable(value: object) -> JSONValue:
    """Convert a result value (dataclasses, datetimes, paths, containers) to JSON data."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, dict):
        return {_key(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | range):
        return [jsonable(item) for item in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise TypeError(f"cannot show {type(value).__name__} as JSON")


def _key(key: object) -> str:
    return "/".join(str(part) for part in key) if isinstance(key, tuple) else str(key)
