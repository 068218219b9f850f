"""The line format of session messages: one JSON line per stored message.

A stored message is one JSON line, ``{"t": "msg", "at": "...", "m": {...}}``: ``m`` is the
message in chat-completions form (``Message.to_json``), ``at`` when it was appended (ISO 8601
with offset). The SQLite store keeps this line as each message's body. ``encode`` writes it,
``parse`` reads it back, and a line that is not one is a ``RecordFormatError``. This module
does no I/O.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import cast

from reverie.core.inbound import has_surrogate_escape, valid_json
from reverie.core.messages import JSONObject, JSONValue, Message, MessageFormatError
from reverie.errors import InputError


class RecordFormatError(ValueError):
    """A journal line is not a valid record; the text says why."""


@dataclass(frozen=True, slots=True, kw_only=True)
class MessageRecord:
    """One appended message."""

    at: datetime
    message: Message


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


def parse(line: bytes) -> MessageRecord:
    """Parse one message line (with or without its newline).

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


def _parse_object(obj: JSONObject) -> MessageRecord:
    if obj.get("t") != "msg":
        raise RecordFormatError(f"unknown record type {obj.get('t')!r}")
    return MessageRecord(at=_time(obj["at"]), message=Message.from_json(obj["m"]))


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
