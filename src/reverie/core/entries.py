"""History entries: the value type, its JSON line form, and the cleaning applied before writing.

One entry is one line of ``memory/history.jsonl``::

    {"cursor": 7, "timestamp": "2026-11-30 14:05", "content": "...", "session_key": "cli:x",
     "time": "2026-11-30T14:05:09.123456+00:00", "range": [0, 12], "kind": "summary"}

``cursor``, ``timestamp`` (nanobot's local ``YYYY-MM-DD HH:MM``) and ``content`` are nanobot's
fields; ``session_key`` is optional; ``time`` (precise, UTC), ``range`` (the session messages
``[start, end)`` a compaction entry covers) and ``kind`` (``summary``, ``raw`` when the
summariser failed and the transcript was kept instead, ``import``...) are reverie's additions,
which nanobot ignores. A cursor is a positive ``int``: a bool, float, string or negative
number makes the line invalid (``EntryFormatError``), and the log quarantines it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from json.encoder import encode_basestring
from pathlib import Path
from typing import TYPE_CHECKING, cast

from reverie.core.clock import wall_clock
from reverie.core.inbound import clean_text, has_surrogate_escape, valid_json

if TYPE_CHECKING:
    from collections.abc import Callable

    from reverie.core.messages import JSONValue

HARD_CAP_CHARS = 64_000
"""No entry's content is ever longer than this, whatever the caller asks."""

_THINK_BLOCK = re.compile(r"<(think|thinking|reasoning)\b[^>]*>.*?</\1\s*>", re.DOTALL | re.I)
_THINK_UNCLOSED = re.compile(r"<(think|thinking|reasoning)\b[^>]*>.*\Z", re.DOTALL | re.I)
_HARMONY_ANALYSIS = re.compile(
    r"<\|channel\|>\s*(analysis|commentary)\s*<\|message\|>.*?(<\|end\|>|\Z)", re.DOTALL
)
_SPECIAL_TOKEN = re.compile(r"<\|[a-z_]{1,32}\|>|<channel\|>|<\|channel>")


_quote = encode_basestring
"""A string as ``json.dumps(text, ensure_ascii=False)`` writes it (the C encoder)."""


class EntryFormatError(ValueError):
    """A history line is not a valid entry; the message says why."""


@dataclass(frozen=True, slots=True, kw_only=True)
class HistoryEntry:
    """One line of the history log."""

    cursor: int
    timestamp: str
    content: str
    session_key: str | None = None
    time: datetime | None = None
    range: tuple[int, int] | None = None
    kind: str | None = None

    def to_line(self) -> bytes:
        """Return the entry as one JSON line, newline included, UTF-8 encoded.

        Built by hand (``json`` quotes only the strings): byte for byte what
        ``json.dumps(fields, ensure_ascii=False)`` gives, at a third of its cost on the append
        path. Numbers that are not plain ``int`` take the ``json.dumps`` path.
        """
        if type(self.cursor) is not int or (
            self.range is not None and not all(type(n) is int for n in self.range)
        ):
            return self._dumped_line()
        head = f'{{"cursor": {self.cursor}, "timestamp": {_quote(self.timestamp)}, '
        parts = [head, f'"content": {_quote(self.content)}']
        if self.session_key is not None:
            parts.append(f', "session_key": {_quote(self.session_key)}')
        if self.time is not None:
            parts.append(f', "time": {_quote(self.time.isoformat())}')
        if self.range is not None:
            parts.append(f', "range": [{self.range[0]}, {self.range[1]}]')
        if self.kind is not None:
            parts.append(f', "kind": {_quote(self.kind)}')
        parts.append("}\n")
        try:
            return "".join(parts).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: stored as U+FFFD, never as an escape
            return self._dumped_line()

    def _dumped_line(self) -> bytes:
        """``to_line`` through ``json.dumps`` (the reference the hand-built line matches)."""
        obj: dict[str, object] = {
            "cursor": self.cursor,
            "timestamp": self.timestamp,
            "content": self.content,
        }
        if self.session_key is not None:
            obj["session_key"] = self.session_key
        if self.time is not None:
            obj["time"] = self.time.isoformat()
        if self.range is not None:
            obj["range"] = list(self.range)
        if self.kind is not None:
            obj["kind"] = self.kind
        try:
            return (json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: stored as U+FFFD, never as an escape
            cleaned = valid_json(cast("dict[str, JSONValue]", obj), where="a history entry")[0]
            return (json.dumps(cleaned, ensure_ascii=False) + "\n").encode("utf-8")

    @classmethod
    def from_line(cls, line: bytes) -> HistoryEntry:
        """Parse one history line (with or without its newline).

        Raises:
            EntryFormatError: invalid UTF-8 or JSON, not an object, or a bad field.
        """
        try:
            obj = json.loads(line)
        except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError both land here
            raise EntryFormatError(f"not valid JSON ({exc})") from exc
        if not isinstance(obj, dict):
            raise EntryFormatError(f"not a JSON object but {type(obj).__name__}")
        cursor = obj.get("cursor")
        if type(cursor) is not int or cursor <= 0:
            raise EntryFormatError(f"cursor must be a positive integer, got {cursor!r}")
        content, timestamp = obj.get("content"), obj.get("timestamp", "")
        session_key = obj.get("session_key")
        if not isinstance(content, str):
            raise EntryFormatError(f"content must be a string, got {type(content).__name__}")
        if has_surrogate_escape(line):  # written by nanobot, an older reverie, or by hand
            content = clean_text(content)
            session_key = clean_text(session_key) if isinstance(session_key, str) else session_key
        if not isinstance(timestamp, str):
            raise EntryFormatError(f"timestamp must be a string, got {timestamp!r}")
        if session_key is not None and not isinstance(session_key, str):
            raise EntryFormatError(f"session_key must be a string, got {session_key!r}")
        return cls(
            cursor=cursor,
            timestamp=timestamp,
            content=content,
            session_key=session_key or None,
            time=_parse_time(obj.get("time")),
            range=_parse_range(obj.get("range")),
            kind=obj["kind"] if isinstance(obj.get("kind"), str) else None,
        )


def _parse_range(value: object) -> tuple[int, int] | None:
    if (
        isinstance(value, list)
        and len(value) == 2
        and all(type(item) is int and item >= 0 for item in value)
        and value[0] <= value[1]
    ):
        return (value[0], value[1])
    return None


def _parse_time(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def strip_reasoning(text: str) -> str:
    """Remove leaked model reasoning: ``<think>`` blocks (closed or not) and channel markers.

    Every pattern starts with ``<``: text without one is only stripped (most appends).
    """
    if "<" not in text:
        return text.strip()
    text = _THINK_BLOCK.sub("", text)
    text = _THINK_UNCLOSED.sub("", text)
    text = _HARMONY_ANALYSIS.sub("", text)
    return _SPECIAL_TOKEN.sub("", text).strip()


def prepared_content(text: str, max_chars: int | None = None) -> str:
    """Return ``text`` as the history log stores it.

    Valid Unicode, leaked reasoning stripped, secrets redacted (``reverie.core.redact``), capped at
    ``max_chars`` (never more than ``HARD_CAP_CHARS``).
    """
    limit = HARD_CAP_CHARS if max_chars is None else min(max_chars, HARD_CAP_CHARS)
    return truncate(_redactor()(strip_reasoning(clean_text(text))), limit)


_REDACT: list[Callable[[str], str]] = []


def _redactor() -> Callable[[str], str]:
    """``reverie.core.redact.redact``, imported on the first write (reads never load it)."""
    if not _REDACT:
        from reverie.core.redact import redact  # noqa: PLC0415

        _REDACT.append(redact)
    return _REDACT[0]


def truncate(text: str, limit: int) -> str:
    """Cut ``text`` to at most ``limit`` characters, ending with a marker saying how much went."""
    if len(text) <= limit:
        return text
    marker = f"\n… [truncated {len(text) - limit} chars]"
    keep = max(0, limit - len(marker) - 8)
    marker = f"\n… [truncated {len(text) - keep} chars]"
    return text[:keep] + marker[: limit - keep]


def nanobot_timestamp(moment: datetime) -> str:
    """Format a time the way nanobot does: local wall-clock ``YYYY-MM-DD HH:MM``."""
    return wall_clock(moment)


@dataclass(frozen=True, slots=True, kw_only=True)
class TrimResult:
    """What ``trim`` did: entries dropped and kept, and the last cursor dropped (0 if none)."""

    dropped: int
    kept: int
    dropped_through: int


@dataclass(frozen=True, slots=True, kw_only=True)
class BadLine:
    """A line that was taken out of a source file, with where it was and why."""

    source: Path
    line: int
    offset: int
    raw: bytes
    reason: str

    def describe(self) -> str:
        """One human-readable sentence naming the file, line and reason."""
        return f"{self.source}:{self.line} (byte {self.offset}): {self.reason}"
