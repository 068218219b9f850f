"""The ledger: ``memory/ledger.jsonl``, one line per model call made by a memory job.

Compaction and dream (and their model-free stand-ins) record every call here: when, which job,
which session, which model or mode, tokens in and out, how long it took, and how it ended. It
is what ``status`` and ``cost`` add up, and what the soak test checks token bounds against.

Appends are one ``write`` on an ``O_APPEND`` descriptor under a ``ProcessLock``, so lines from
many processes never interleave. The ledger is diagnostics, not memory: a line that does not
parse is skipped by readers and counted in ``LedgerSummary.unreadable`` (``doctor`` reports
it), never rewritten away. A reason (often an error text) is redacted before it is written.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from reverie.clock import wall_clock
from reverie.errors import StorageError
from reverie.redact import redact
from reverie.store.layout import check_path
from reverie.store.locks import ProcessLock


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

    def to_line(self) -> bytes:
        """Return the record as one JSON line."""
        obj = {
            "time": self.time.isoformat(),
            "job": self.job,
            "session_key": self.session_key,
            "model": self.model,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
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
        )


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


class Ledger:
    """Append and read ``memory/ledger.jsonl``."""

    def __init__(self, path: Path, *, lock: ProcessLock, root: Path | None = None) -> None:
        self.path = path
        self._lock = lock
        self._root = root

    def append(self, record: LedgerRecord) -> None:
        """Append one record (one write under the lock)."""
        line = record.to_line()
        with self._lock.hold():
            if self._root is not None:  # never append through a link leading outside
                check_path(self._root, self.path.relative_to(self._root).as_posix(), write=True)
            try:
                fd = os.open(
                    self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644
                )
                try:
                    os.write(fd, line)
                finally:
                    os.close(fd)
            except OSError as exc:
                raise StorageError(
                    f"cannot append to ledger ({exc.strerror})", path=self.path
                ) from exc

    def records(self) -> Iterator[LedgerRecord | None]:
        """Yield every record in order; None stands for a line that could not be parsed."""
        try:
            handle = self.path.open("rb")
        except FileNotFoundError:
            return
        with handle:
            for line in handle:
                if not line.strip():
                    continue
                try:
                    yield LedgerRecord.from_line(line)
                except (ValueError, KeyError, TypeError):
                    yield None

    def summary(self) -> LedgerSummary:
        """Add up the ledger by job and by local day."""
        result = LedgerSummary()
        for record in self.records():
            if record is None:
                result.unreadable += 1
                continue
            result.by_job.setdefault(record.job, JobTotals()).add(record)
            day = wall_clock(record.time)[:10]
            result.by_day.setdefault((day, record.job), JobTotals()).add(record)
        return result
