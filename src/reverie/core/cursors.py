"""Cursors as text: a cursor file holds one non-negative integer (nanobot's format).

``parse_cursor_text`` reads a cursor file's text (None when empty: a torn nanobot write),
``validate_cursor`` checks a value handed in. Both backends and the importers use them; the
folder's cursor files are ``storage.folder.cursors``. No I/O here.
"""

from __future__ import annotations

from pathlib import Path

from reverie.errors import CursorError


def parse_cursor_text(text: str, *, path: Path) -> int | None:
    """Parse a cursor file's text; None when it is empty (a torn nanobot write).

    Raises:
        CursorError: the text is not a non-negative integer.
    """
    stripped = text.strip()
    if not stripped:
        return None
    if not stripped.isascii() or not stripped.isdigit():
        raise CursorError(
            "cursor file does not hold a non-negative integer", value=stripped, path=path
        )
    return int(stripped)


def validate_cursor(value: object) -> int:
    """Return ``value`` if it is a non-negative int (not a bool), else raise CursorError."""
    if type(value) is not int or value < 0:
        raise CursorError("a cursor must be a non-negative integer", value=value)
    return value
