"""``why``: the durable lines that match a text, and the entries and messages they came from.

A line matches when it holds the text (normalised, case folded); when none does, the lines
holding every content word of it ("live in Porto" finds "Lives in Porto").

``explain`` (and ``explain_all``: every durable line with its sources) reads the durable
files, the provenance records, the history log and the sessions, through the storage seam
(``reverie.storage.ports.ProvenanceStores``), so it answers alike on a folder and on a database
workspace; it writes nothing. A line with a record is
``origin="dream"`` and lists its sources; a line without one is ``origin="hand"`` (a
person wrote or edited it, or it predates provenance). A source entry that left the log
(trimmed, or forgotten) keeps its cursor, session and time from the records with
``text=None``; a message keeps its index, speaker and time, and its text as the session
holds it now (a message forgotten since is no longer cited). Every value has ``to_json()``
(plain JSON types, times in ISO 8601) for the CLI, the viewer and MCP.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from reverie.core.messages import JSONObject
from reverie.core.provenance import EntrySource, Provenance
from reverie.errors import InputError
from reverie.memory.provenance.lines import DurableLine, durable_lines, matches, resembles

if TYPE_CHECKING:
    from reverie.storage.ports import ProvenanceStores

Origin = Literal["dream", "hand"]


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceMessage:
    """A session message a line came from (``text`` None: no longer in the session)."""

    session_key: str
    index: int
    role: str
    time: datetime | None
    text: str | None

    def to_json(self) -> JSONObject:
        """The message as plain JSON."""
        return {
            "session_key": self.session_key,
            "index": self.index,
            "role": self.role,
            "time": _iso(self.time),
            "text": self.text,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceEntry:
    """A history entry a line came from (``text`` None: trimmed or forgotten since)."""

    cursor: int
    session_key: str | None
    time: datetime | None
    kind: str | None
    text: str | None
    messages: tuple[SourceMessage, ...] = ()

    def to_json(self) -> JSONObject:
        """The entry and its messages as plain JSON."""
        return {
            "cursor": self.cursor,
            "session_key": self.session_key,
            "time": _iso(self.time),
            "kind": self.kind,
            "text": self.text,
            "messages": [m.to_json() for m in self.messages],
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class LineProvenance:
    """One durable line and where it came from."""

    file: str
    number: int
    text: str
    origin: Origin
    first_written: datetime | None = None
    last_written: datetime | None = None
    entries: tuple[SourceEntry, ...] = ()

    def to_json(self) -> JSONObject:
        """The line and its sources as plain JSON."""
        return {
            "file": self.file,
            "line": self.number,
            "text": self.text,
            "origin": self.origin,
            "first_written": _iso(self.first_written),
            "last_written": _iso(self.last_written),
            "entries": [e.to_json() for e in self.entries],
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class WhyReport:
    """Every durable line matching ``query``, with its provenance."""

    query: str
    lines: tuple[LineProvenance, ...] = ()

    def to_json(self) -> JSONObject:
        """The report as plain JSON."""
        return {"query": self.query, "lines": [line.to_json() for line in self.lines]}


def explain(stores: ProvenanceStores, query: str) -> WhyReport:
    """Return the durable lines matching ``query`` and where each came from.

    Raises:
        InputError: ``query`` is blank.
    """
    if not query.strip():
        raise InputError("why needs a text to look for")
    provenance = stores.provenance.read()
    lines = durable_lines(stores.durable_texts())
    chosen = [line for line in lines if matches(line.text, query)]
    if not chosen:  # no line says it word for word: the lines holding all its words
        chosen = [line for line in lines if resembles(line.text, query)]
    resolver = _Resolver(stores, _sources(chosen, provenance))
    found = [_explain_line(line, provenance, resolver) for line in chosen]
    return WhyReport(query=query, lines=tuple(found))


def explain_all(stores: ProvenanceStores) -> WhyReport:
    """Every durable line, in file order, and where each came from (``query`` is '')."""
    provenance = stores.provenance.read()
    lines = durable_lines(stores.durable_texts())
    resolver = _Resolver(stores, _sources(lines, provenance))
    return WhyReport(
        query="", lines=tuple(_explain_line(line, provenance, resolver) for line in lines)
    )


def _explain_line(line: DurableLine, provenance: Provenance, resolver: _Resolver) -> LineProvenance:
    record = provenance.get(line.file, line.text)
    if record is None:
        return LineProvenance(file=line.file, number=line.number, text=line.text, origin="hand")
    return LineProvenance(
        file=line.file,
        number=line.number,
        text=line.text,
        origin="dream",
        first_written=record.first,
        last_written=record.updated,
        entries=tuple(resolver.entry(source) for source in record.sources),
    )


class _Resolver:
    """Looks sources up in the log and the sessions: every entry and message in one read each.

    ``explain`` of ten lines took one round trip per source entry and read each cited
    session whole on a database (133.5 ms against 11.8 ms on a folder); now the entries
    are one ``read_cursors`` and the messages one ``messages_at``, whatever their number.
    """

    def __init__(self, stores: ProvenanceStores, sources: Sequence[EntrySource]) -> None:
        self._entries = {
            entry.cursor: entry.content
            for entry in stores.history.read_cursors({source.cursor for source in sources})
        }
        self._messages = stores.sessions.messages_at(
            {
                (source.session_key, ref.index)
                for source in sources
                if source.session_key is not None
                for ref in source.messages
            }
        )

    def entry(self, source: EntrySource) -> SourceEntry:
        messages: tuple[SourceMessage, ...] = ()
        if (key := source.session_key) is not None:
            messages = tuple(
                SourceMessage(
                    session_key=key,
                    index=ref.index,
                    role=ref.role,
                    time=ref.time,
                    text=None
                    if (found := self._messages.get((key, ref.index))) is None
                    else found.text,
                )
                for ref in source.messages
            )
        return SourceEntry(
            cursor=source.cursor,
            session_key=source.session_key,
            time=source.time,
            kind=source.kind,
            text=self._entries.get(source.cursor),
            messages=messages,
        )


def _sources(lines: Sequence[DurableLine], provenance: Provenance) -> list[EntrySource]:
    """Every source the records of ``lines`` cite."""
    return [
        source
        for line in lines
        if (record := provenance.get(line.file, line.text)) is not None
        for source in record.sources
    ]


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()
