"""Provenance values: where every dream-written durable line came from, and their one format.

The durable files stay plain Markdown; what each bullet came from is kept beside them, keyed
by the line's file and its *normalised* text (bullet marker dropped, whitespace collapsed,
case folded: ``line_key``). A ``LineRecord`` lists the history entries that support the line
(``EntrySource``) and, for each, the session messages they summarise (``MessageRef``). Only
references are kept, never the text. ``document_text``/``read_document`` are the one JSON
document both backends store (a folder in ``.reverie/provenance.json``, a database in a row)::

    {"format": "reverie-provenance", "version": 1, "lines": [
      {"file": "USER.md", "key": "lives in porto", "first": "<iso>", "updated": "<iso>",
       "sources": [{"cursor": 7, "session_key": "cli:x", "time": "<iso>", "kind": "summary",
                    "range": [0, 12],
                    "messages": [{"index": 3, "role": "user", "time": "<iso>"}]}]}]}

Records are added or widened, never dropped when a line leaves a file (so a restored line
finds its record again); past ``MAX_RECORDS`` the least recently written go. An invalid
document reads as no records, with a warning naming where it came from. No I/O here.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from datetime import datetime

logger = logging.getLogger(__name__)


PROVENANCE_FORMAT = "reverie-provenance"


PROVENANCE_VERSION = 1


MAX_RECORDS = 20_000
"""The sidecar keeps at most this many records, dropping the least recently written first."""


_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")


def line_key(text: str) -> str:
    """The normalised form a line is keyed by: no bullet marker, one space, case folded."""
    return " ".join(_BULLET.sub("", text).split()).casefold()


@dataclass(frozen=True, slots=True, kw_only=True)
class MessageRef:
    """One session message an entry summarised: its index, speaker and time."""

    index: int
    role: str
    time: datetime | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class EntrySource:
    """One history entry a line came from, and the session messages behind it."""

    cursor: int
    session_key: str | None = None
    time: datetime | None = None
    kind: str | None = None
    range: tuple[int, int] | None = None
    messages: tuple[MessageRef, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class LineRecord:
    """Where one durable line (by file and normalised text) came from."""

    file: str
    key: str
    first: datetime
    updated: datetime
    sources: tuple[EntrySource, ...] = ()

    def merged(self, sources: tuple[EntrySource, ...], at: datetime) -> LineRecord:
        """Return this record with ``sources`` added (by cursor; newer refs replace older)."""
        by_cursor = {source.cursor: source for source in self.sources}
        for source in sources:
            by_cursor[source.cursor] = _merge_source(by_cursor.get(source.cursor), source)
        ordered = tuple(by_cursor[c] for c in sorted(by_cursor))
        return LineRecord(
            file=self.file, key=self.key, first=self.first, updated=at, sources=ordered
        )


@dataclass(slots=True)
class Provenance:
    """Every line record, by (file, key)."""

    records: dict[tuple[str, str], LineRecord] = field(default_factory=dict)

    def get(self, file: str, text: str) -> LineRecord | None:
        """The record of the line ``text`` of ``file`` (raw or normalised), if dream wrote it."""
        return self.records.get((file, line_key(text)))

    def note(self, file: str, text: str, sources: tuple[EntrySource, ...], at: datetime) -> None:
        """Record (or widen) the sources of a line dream wrote."""
        key = line_key(text)
        if not key:
            return
        old = self.records.get((file, key))
        base = old or LineRecord(file=file, key=key, first=at, updated=at)
        self.records[(file, key)] = base.merged(sources, at)


def _merge_source(old: EntrySource | None, new: EntrySource) -> EntrySource:
    if old is None:
        return new
    by_index = {m.index: m for m in (*old.messages, *new.messages)}
    return EntrySource(
        cursor=new.cursor,
        session_key=new.session_key or old.session_key,
        time=new.time or old.time,
        kind=new.kind or old.kind,
        range=new.range or old.range,
        messages=tuple(by_index[i] for i in sorted(by_index)),
    )


def document_text(provenance: Provenance) -> str:
    """The records as the sidecar's JSON document (bounded to ``MAX_RECORDS``, newest kept).

    A database backend stores the same document, so both backends keep one format.
    """
    records = provenance.records
    if len(records) > MAX_RECORDS:
        newest = sorted(records.items(), key=lambda item: item[1].updated)[-MAX_RECORDS:]
        records = dict(newest)
    lines = [_record_json(r) for _k, r in sorted(records.items())]
    document = {"format": PROVENANCE_FORMAT, "version": PROVENANCE_VERSION, "lines": lines}
    return json.dumps(document, ensure_ascii=False, indent=1) + "\n"


def read_document(text: str, *, where: str) -> Provenance:
    """Parse ``document_text``'s output; invalid: a warning naming ``where``, and no records."""
    try:
        return _parse(text)
    except (ValueError, KeyError, TypeError) as exc:
        logger.warning("provenance %s is invalid (%s); lines read as hand-written", where, exc)
        return Provenance()


def _time_text(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def _record_json(record: LineRecord) -> dict[str, object]:
    return {
        "file": record.file,
        "key": record.key,
        "first": record.first.isoformat(),
        "updated": record.updated.isoformat(),
        "sources": [
            {
                "cursor": s.cursor,
                "session_key": s.session_key,
                "time": _time_text(s.time),
                "kind": s.kind,
                "range": None if s.range is None else list(s.range),
                "messages": [
                    {"index": m.index, "role": m.role, "time": _time_text(m.time)}
                    for m in s.messages
                ],
            }
            for s in record.sources
        ],
    }


def _parse(text: str) -> Provenance:
    document = json.loads(text)
    if not isinstance(document, dict) or document.get("format") != PROVENANCE_FORMAT:
        raise ValueError("not a reverie provenance file")
    version = document.get("version")
    if not isinstance(version, int) or version > PROVENANCE_VERSION:
        raise ValueError(f"unknown provenance version {version!r}")
    provenance = Provenance()
    for raw in document["lines"]:
        record = LineRecord(
            file=str(raw["file"]),
            key=str(raw["key"]),
            first=_time(raw["first"]) or datetime.fromtimestamp(0).astimezone(),
            updated=_time(raw["updated"]) or datetime.fromtimestamp(0).astimezone(),
            sources=tuple(_source(s) for s in raw["sources"]),
        )
        provenance.records[(record.file, record.key)] = record
    return provenance


def _source(raw: dict[str, object]) -> EntrySource:
    span = raw.get("range")
    messages = raw.get("messages") or []
    if not isinstance(messages, list):
        raise TypeError("'messages' must be a list")
    return EntrySource(
        cursor=_int(raw["cursor"]),
        session_key=_optional_str(raw.get("session_key")),
        time=_time(raw.get("time")),
        kind=_optional_str(raw.get("kind")),
        range=(_int(span[0]), _int(span[1])) if isinstance(span, list) and len(span) == 2 else None,
        messages=tuple(
            MessageRef(index=_int(m["index"]), role=str(m["role"]), time=_time(m.get("time")))
            for m in messages
        ),
    )


def _int(value: object) -> int:
    if type(value) is not int:
        raise TypeError(f"expected an integer, got {value!r}")
    return value


def _optional_str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _time(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    moment = datetime.fromisoformat(value)
    return moment if moment.tzinfo is not None else moment.astimezone()
