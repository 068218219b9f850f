"""The line format of session messages, and the records of the old session journals.

A stored message is one JSON line, ``{"t": "msg", "at": "...", "m": {...}}``: ``m`` is the
message in chat-completions form (``Message.to_json``), ``at`` when it was appended. The SQLite
store keeps this line as each message's body; it is also the ``msg`` line of the journals an
older reverie wrote, one per session, which ``journal_reader`` reads to move them into SQLite.
A journal held these records, one per line::

    {"t": "head", "format": 1, "key": "cli:default", "id": "9f0c...", "created_at": "..."}
    {"t": "msg", "at": "...", "m": {"role": "user", "content": "hi", ...}}
    {"t": "mark", "at": "...", "upto": 12}
    {"t": "summary", "at": "...", "summary": {"text": "...", "last_active": "..."} | null}
    {"t": "meta", "at": "...", "set": {"channel": "telegram"}}

``head`` is the first line: the full key and a random ``id``. ``mark`` and ``summary`` replace
earlier records of their kind; ``meta`` merges its keys into the metadata. Times are ISO 8601
with offset. Only ``msg`` lines are still written (``encode``); ``parse`` reads every kind, and
a line that is none of them is a ``RecordFormatError``. This module does no I/O.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import TypeAlias, cast

from reverie.core.inbound import has_surrogate_escape, valid_json
from reverie.core.messages import JSONObject, JSONValue, Message, MessageFormatError
from reverie.core.session import ArchivedSummary
from reverie.errors import InputError

FORMAT = 1
"""The newest journal format (in the head record) this reverie reads."""


class RecordFormatError(ValueError):
    """A journal line is not a valid record; the text says why."""


@dataclass(frozen=True, slots=True, kw_only=True)
class HeadRecord:
    """The first line of a journal: the session key, journal id and creation time."""

    key: str
    journal_id: str
    created_at: datetime


@dataclass(frozen=True, slots=True, kw_only=True)
class MessageRecord:
    """One appended message."""

    at: datetime
    message: Message


@dataclass(frozen=True, slots=True, kw_only=True)
class MarkRecord:
    """The compaction mark was set to ``upto``."""

    at: datetime
    upto: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SummaryRecord:
    """The archived summary was set (or cleared, when None)."""

    at: datetime
    summary: ArchivedSummary | None


@dataclass(frozen=True, slots=True, kw_only=True)
class MetadataRecord:
    """These metadata keys were set."""

    at: datetime
    values: JSONObject


Record: TypeAlias = HeadRecord | MessageRecord | MarkRecord | SummaryRecord | MetadataRecord


def _line(obj: JSONObject) -> bytes:
    try:
        text = json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n"
    except RecursionError as exc:
        raise InputError("a journal record is nested too deeply to be written") from exc
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate (e.g. a model reply cut inside an emoji) cannot be UTF-8, and stored
        # as an escape it would break every later read: it is replaced with U+FFFD.
        cleaned = json.dumps(valid_json(obj, where="a journal record")[0], ensure_ascii=False)
        return (cleaned + "\n").encode("utf-8")


def encode(record: MessageRecord) -> bytes:
    """Return ``record`` as one JSON line, newline included, UTF-8 encoded."""
    return _line({"t": "msg", "at": record.at.isoformat(), "m": record.message.to_json()})


def parse(line: bytes) -> Record:
    """Parse one journal line (with or without its newline).

    Raises:
        RecordFormatError: the line is not valid UTF-8 JSON or not a known record.
    """
    try:
        obj = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RecordFormatError(f"not JSON ({exc})") from exc
    if not isinstance(obj, dict):
        raise RecordFormatError("a record must be a JSON object")
    try:
        if has_surrogate_escape(line):  # written by an older reverie, or by hand
            obj = cast("JSONObject", valid_json(obj, where="a journal record")[0])
        return _parse_object(obj)
    except MessageFormatError as exc:
        raise RecordFormatError(f"bad message: {exc}") from exc
    except (KeyError, TypeError, ValueError) as exc:  # InputError is a ValueError too
        raise RecordFormatError(f"bad {obj.get('t')!r} record: {exc!r}") from exc


def _parse_object(obj: JSONObject) -> Record:
    kind = obj.get("t")
    if kind == "head":
        if not isinstance(obj["format"], int) or obj["format"] > FORMAT:
            raise RecordFormatError(f"journal format {obj['format']!r} is not supported")
        return HeadRecord(
            key=_text(obj["key"]), journal_id=_text(obj["id"]), created_at=_time(obj["created_at"])
        )
    at = _time(obj["at"])
    if kind == "msg":
        return MessageRecord(at=at, message=Message.from_json(obj["m"]))
    if kind == "mark":
        upto = obj["upto"]
        if isinstance(upto, bool) or not isinstance(upto, int):
            raise RecordFormatError(f"mark must be an integer, got {upto!r}")
        return MarkRecord(at=at, upto=upto)
    if kind == "summary":
        return SummaryRecord(at=at, summary=_summary(obj["summary"]))
    if kind == "meta":
        values = obj["set"]
        if not isinstance(values, dict):
            raise RecordFormatError("'set' must be an object")
        return MetadataRecord(at=at, values=values)
    raise RecordFormatError(f"unknown record type {kind!r}")


def _summary(value: JSONValue) -> ArchivedSummary | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise RecordFormatError("'summary' must be an object or null")
    return ArchivedSummary(text=_text(value["text"]), last_active=_time(value["last_active"]))


def _text(value: JSONValue) -> str:
    if not isinstance(value, str):
        raise RecordFormatError(f"expected a string, got {value!r}")
    return value


def parse_time(value: JSONValue) -> datetime:
    """Parse an ISO 8601 time with offset.

    Raises:
        RecordFormatError: not a string, not ISO 8601, or without a timezone.
    """
    text = _text(value)
    try:
        moment = datetime.fromisoformat(text)
    except ValueError as exc:
        raise RecordFormatError(f"not an ISO 8601 time: {text!r}") from exc
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise RecordFormatError(f"time without a timezone: {text!r}")
    return moment


_time = parse_time
