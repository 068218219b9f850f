"""Ledger values: one model call of a memory job, and the totals ``status`` and ``cost`` add up.

A ``LedgerRecord`` is one line of a workspace's ledger (a model call, or a model-free step, of
compaction or dream): when, which job, which session, which model or mode, tokens in and out,
how long it took and how it ended; ``to_line``/``from_line`` are its JSON-lines form (a reason
is redacted before it is written). ``summarise`` adds records up by job and by local day,
counting the lines that could not be read. Where the lines are kept is the backend's
(``reverie.storage.folder.ledger``, or a database table). This module does no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from reverie.core.clock import wall_clock


@dataclass(frozen=True, slots=True, kw_only=True)
class LedgerRecord:
    """One model call (or model-free step) made by a memory job."""

    time: datetime
    job: str
    outcome: str
    model: str
    tokens_in: int = 0
    tokens_out: int = 0
    duration_ms: float = 0.0
    session_key: str | None = None
    reason: str | None = None
    estimated_in: int | None = None
    """The counter's price of the prompt (model calls only), beside the billed ``tokens_in``."""

    @classmethod
    def of_call(cls, call: CallFacts) -> LedgerRecord:
        """The record of one metered model call (``reverie.llm.metered.ModelCall``)."""
        return cls(
            time=call.time,
            job=call.job,
            outcome=call.outcome,
            model=call.model,
            tokens_in=call.tokens_in,
            tokens_out=call.tokens_out,
            duration_ms=call.duration_ms,
            session_key=call.session_key,
            reason=call.reason,
            estimated_in=call.estimated_in,
        )

    def to_line(self) -> bytes:
        """Return the record as one JSON line."""
        from reverie.core.redact import redact  # noqa: PLC0415 (on the first write: reads skip it)

        obj = {
            "time": self.time.isoformat(),
            "job": self.job,
            "session_key": self.session_key,
            "model": self.model,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "estimated_in": self.estimated_in,
            "duration_ms": round(self.duration_ms, 3),
            "outcome": self.outcome,
            "reason": None if self.reason is None else redact(self.reason),
        }
        return (json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8")

    @classmethod
    def from_line(cls, line: bytes) -> LedgerRecord:
        """Parse one ledger line; raises ValueError (or KeyError/TypeError) when it is bad."""
        obj = json.loads(line)
        return cls(
            time=datetime.fromisoformat(obj["time"]),
            job=str(obj["job"]),
            outcome=str(obj["outcome"]),
            model=str(obj["model"]),
            tokens_in=int(obj["tokens_in"]),
            tokens_out=int(obj["tokens_out"]),
            duration_ms=float(obj["duration_ms"]),
            session_key=obj.get("session_key"),
            reason=obj.get("reason"),
            estimated_in=_optional_int(obj.get("estimated_in")),
        )


def _optional_int(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise TypeError(f"not a whole number: {value!r}")


class CallFacts(Protocol):
    """What the ledger needs of a model call; ``reverie.llm.metered.ModelCall`` has it.

    A protocol, so the store never imports the model layer.
    """

    @property
    def time(self) -> datetime:
        """When the call ended."""
        ...

    @property
    def job(self) -> str:
        """The memory job that made it."""
        ...

    @property
    def outcome(self) -> str:
        """How it ended."""
        ...

    @property
    def model(self) -> str:
        """The model's name."""
        ...

    @property
    def tokens_in(self) -> int:
        """Prompt tokens (reported, else estimated)."""
        ...

    @property
    def tokens_out(self) -> int:
        """Reply tokens (reported, else estimated)."""
        ...

    @property
    def estimated_in(self) -> int:
        """The counter's price of the prompt."""
        ...

    @property
    def duration_ms(self) -> float:
        """How long the call took."""
        ...

    @property
    def session_key(self) -> str | None:
        """The session it served, if one."""
        ...

    @property
    def reason(self) -> str | None:
        """Why it failed, if it did."""
        ...


@dataclass(slots=True)
class JobTotals:
    """Calls and tokens of one job (or one job on one day)."""

    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)

    def add(self, record: LedgerRecord) -> None:
        """Count one record."""
        self.calls += 1
        self.tokens_in += record.tokens_in
        self.tokens_out += record.tokens_out
        self.outcomes[record.outcome] = self.outcomes.get(record.outcome, 0) + 1


@dataclass(slots=True)
class LedgerSummary:
    """Totals by job and by (day, job), and how many lines could not be read."""

    by_job: dict[str, JobTotals] = field(default_factory=dict)
    by_day: dict[tuple[str, str], JobTotals] = field(default_factory=dict)
    unreadable: int = 0


def summarise(records: Iterable[LedgerRecord | None]) -> LedgerSummary:
    """Add ``records`` up by job and by local day (None: a record that could not be read)."""
    result = LedgerSummary()
    for record in records:
        if record is None:
            result.unreadable += 1
            continue
        result.by_job.setdefault(record.job, JobTotals()).add(record)
        day = wall_clock(record.time)[:10]
        result.by_day.setdefault((day, record.job), JobTotals()).add(record)
    return result
