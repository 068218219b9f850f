"""What ``forget TEXT`` would remove: the plan shown (and confirmed) before anything goes.

The plan is computed from the text, the durable files, the provenance records, the history
log and every session, through the storage seam (``reverie.storage.ports.ProvenanceStores``: a
folder or a database workspace alike); it writes nothing. It holds:

- **lines**: durable lines whose text contains TEXT (``matches``: normalised, case folded),
  and lines the forgotten entries *led to*: lines whose every recorded source is an entry
  being forgotten (nothing would be left that they came from).
- **entries**: the sources of every sidecar record whose line contains TEXT (the lines in
  the files now, and earlier versions of them that dream superseded, which ``restore`` could
  bring back), plus every entry whose content contains TEXT.
- **messages**: the messages those records cite, plus every session message (internal
  ``dream:`` transcripts included; tool-call arguments included) that contains TEXT.
- **summaries**: sessions whose compaction summary contains TEXT.

Messages of a forgotten entry that do not contain the text and are not cited for a forgotten
line stay: forgetting a fact is not forgetting the whole conversation it was said in. Every
value has ``to_json()``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from reverie.core.messages import JSONObject
from reverie.core.provenance import LineRecord, Provenance, line_key
from reverie.core.tombstones import FORGOTTEN
from reverie.memory.provenance.breadth import broad_message, broad_reason, check_query
from reverie.memory.provenance.lines import DurableLine, durable_lines, matches
from reverie.memory.provenance.pieces import Fact

if TYPE_CHECKING:
    from reverie.core.messages import Message
    from reverie.storage.ports import ProvenanceStores

Reason = Literal["matches", "led_to"]


@dataclass(frozen=True, slots=True, kw_only=True)
class PlannedLine:
    """A durable line to remove, and why (it matches, or it came only from forgotten entries)."""

    file: str
    number: int
    text: str
    reason: Reason

    def to_json(self) -> JSONObject:
        """The line as plain JSON."""
        return {"file": self.file, "line": self.number, "text": self.text, "reason": self.reason}


@dataclass(frozen=True, slots=True, kw_only=True)
class PlannedEntry:
    """A history entry to cut the fact out of (``kept``), or to remove (``kept`` None)."""

    cursor: int
    session_key: str | None
    time: datetime | None
    text: str
    kept: str | None = None

    @property
    def removed(self) -> bool:
        """True when the whole entry goes (nothing else of substance was in it)."""
        return self.kept is None

    def to_json(self) -> JSONObject:
        """The entry as plain JSON."""
        return {
            "cursor": self.cursor,
            "session_key": self.session_key,
            "time": None if self.time is None else self.time.isoformat(),
            "text": self.text,
            "action": "remove" if self.kept is None else "cut",
            "kept": self.kept,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class PlannedMessage:
    """A session message to replace with a tombstone."""

    session_key: str
    index: int
    role: str
    time: datetime | None
    text: str

    def to_json(self) -> JSONObject:
        """The message as plain JSON."""
        return {
            "session_key": self.session_key,
            "index": self.index,
            "role": self.role,
            "time": None if self.time is None else self.time.isoformat(),
            "text": self.text,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class ForgetPlan:
    """Everything ``forget`` removes for ``query``."""

    query: str
    lines: tuple[PlannedLine, ...] = ()
    entries: tuple[PlannedEntry, ...] = ()
    messages: tuple[PlannedMessage, ...] = ()
    summaries: tuple[str, ...] = ()
    records: tuple[tuple[str, str], ...] = ()
    """Sidecar records (file, key) that go with the lines."""

    @property
    def empty(self) -> bool:
        """True when nothing holds the text."""
        return not (self.lines or self.entries or self.messages or self.summaries)

    @property
    def broad(self) -> str | None:
        """Why the plan takes more than one fact (``breadth``), or None."""
        if self.empty:
            return None
        removed = [line.text for line in self.lines if line.reason == "matches"]
        removed += [entry.text for entry in self.entries] + [m.text for m in self.messages]
        return broad_reason(self.query, removed, lines=len(self.lines), messages=len(self.messages))

    def broad_refusal(self) -> str | None:
        """The refusal of a broad plan (why, how much, what to do instead), or None."""
        reason = self.broad
        return (
            None if reason is None else broad_message(self.query, reason, removes=self.describe())
        )

    def describe(self) -> str:
        """One line: how much goes (no forgotten text in it)."""
        sessions = len({m.session_key for m in self.messages} | set(self.summaries))
        return (
            f"{len(self.lines)} line(s), {len(self.entries)} history entr(ies), "
            f"{len(self.messages)} message(s) in {sessions} session(s)"
        )

    def to_json(self) -> JSONObject:
        """The plan as plain JSON."""
        return {
            "query": self.query,
            "lines": [line.to_json() for line in self.lines],
            "entries": [entry.to_json() for entry in self.entries],
            "messages": [message.to_json() for message in self.messages],
            "summaries": list(self.summaries),
        }


def contains(text: str, query: str) -> bool:
    """Whether ``query`` occurs in ``text``, whitespace collapsed and case folded."""
    wanted = " ".join(query.split()).casefold()
    return bool(wanted) and wanted in " ".join(text.split()).casefold()


def plan_forget(stores: ProvenanceStores, query: str) -> ForgetPlan:
    """Return what forgetting ``query`` removes (nothing is changed).

    Raises:
        InputError: ``query`` is too short to name a fact (``breadth.check_query``).
    """
    check_query(query)
    provenance = stores.provenance.read()
    found = durable_lines(stores.durable_texts())
    fact_records = [r for r in provenance.records.values() if matches(r.key, query)]
    fact = Fact(
        query, [r.key for r in fact_records] + [x.text for x in found if matches(x.text, query)]
    )
    cited = {s.cursor for r in fact_records for s in r.sources}
    entries = _entries(stores, fact, cited)
    lines = _lines(found, provenance, query, {e.cursor for e in entries if e.removed})
    refs = {(s.session_key, m.index) for r in fact_records for s in r.sources for m in s.messages}
    messages, summaries = _messages(stores, fact, refs)
    records = {(r.file, r.key) for r in fact_records}
    records |= {(line.file, line_key(line.text)) for line in lines}
    return ForgetPlan(
        query=query,
        lines=tuple(lines),
        entries=tuple(entries),
        messages=tuple(messages),
        summaries=tuple(summaries),
        records=tuple(sorted(records)),
    )


def _entries(stores: ProvenanceStores, fact: Fact, cited: set[int]) -> list[PlannedEntry]:
    planned = []
    for entry in stores.history.entries():
        if entry.cursor not in cited and not contains(entry.content, fact.query):
            continue
        kept = fact.cut(entry.content)
        if kept != entry.content:
            planned.append(
                PlannedEntry(
                    cursor=entry.cursor,
                    session_key=entry.session_key,
                    time=entry.time,
                    text=entry.content,
                    kept=kept,
                )
            )
    return planned


def _lines(
    found: list[DurableLine], provenance: Provenance, query: str, gone: set[int]
) -> list[PlannedLine]:
    planned = []
    for line in found:
        if matches(line.text, query):
            reason: Reason | None = "matches"
        else:
            reason = "led_to" if _only_from(provenance.get(line.file, line.text), gone) else None
        if reason is not None:
            planned.append(
                PlannedLine(file=line.file, number=line.number, text=line.text, reason=reason)
            )
    return planned


def _only_from(record: LineRecord | None, gone: set[int]) -> bool:
    return (
        record is not None
        and bool(record.sources)
        and all(s.cursor in gone for s in record.sources)
    )


def _messages(
    stores: ProvenanceStores, fact: Fact, refs: set[tuple[str | None, int]]
) -> tuple[list[PlannedMessage], list[str]]:
    messages: list[PlannedMessage] = []
    summaries: list[str] = []
    for info in stores.sessions.list():
        session = stores.sessions.load(info.key)
        for index, message in enumerate(session.messages):
            says = (info.key, index) in refs and fact.cut(message.text) != message.text
            if says or _message_holds(message, fact.query):
                messages.append(_planned(info.key, index, message))
        if session.summary is not None and contains(session.summary.text, fact.query):
            summaries.append(info.key)
    return [m for m in messages if m.text != FORGOTTEN], summaries


def _message_holds(message: Message, query: str) -> bool:
    if contains(message.text, query):
        return True
    whole = json.dumps(message.to_json(), ensure_ascii=False)
    return contains(whole, query) or contains(json.dumps(message.to_json()), query)


def _planned(key: str, index: int, message: Message) -> PlannedMessage:
    return PlannedMessage(
        session_key=key,
        index=index,
        role=message.role,
        time=message.timestamp,
        text=message.text or json.dumps([c.to_json() for c in message.tool_calls]),
    )
