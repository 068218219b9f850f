"""Append-only records of one workspace in PostgreSQL: the ledger, rejected rules, quarantine.

Each is one row per record, read back in insertion order. The ledger keeps each record's
JSON form (``LedgerRecord.to_line``, so secrets in a reason are redacted exactly as in
``memory/ledger.jsonl``) and is summed in the database by job; rejected rules and quarantined
lines keep their fields. Appends are single INSERTs: concurrent servers never interleave
parts of a record, and a committed record survives any client crash.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, cast

from reverie.core.entries import BadLine
from reverie.core.ledger import CallFacts, LedgerRecord, LedgerSummary, summarise
from reverie.core.screening import RecordedRejection, RejectedRule
from reverie.storage.postgres.text_codec import from_db, to_db

if TYPE_CHECKING:
    from reverie.storage.postgres.database import Tenant


class PgLedger:
    """One row per model call of a memory job."""

    def __init__(self, tenant: Tenant) -> None:
        self._tenant = tenant

    def append(self, record: LedgerRecord) -> None:
        """Append one record."""
        with self._tenant.transaction() as conn:
            conn.execute(
                "INSERT INTO ledger (workspace_id, at, job, record) VALUES (%s, %s, %s, %s)",
                (self._tenant.id, record.time, record.job, record.to_line().decode("utf-8")),
            )

    def append_call(self, call: CallFacts) -> None:
        """Append the record of one metered model call (``reverie.llm.metered``)."""
        self.append(LedgerRecord.of_call(call))

    def records(self) -> Iterator[LedgerRecord | None]:
        """Yield every record in order; None stands for one that could not be parsed."""
        with self._tenant.transaction() as conn:
            rows = conn.execute(
                "SELECT record::text FROM ledger WHERE workspace_id = %s ORDER BY id",
                (self._tenant.id,),
            ).fetchall()
        for (text,) in rows:
            try:
                yield LedgerRecord.from_line(str(text).encode("utf-8"))
            except (ValueError, KeyError, TypeError):
                yield None

    def summary(self) -> LedgerSummary:
        """Add up the ledger by job and by local day."""
        return summarise(self.records())


class PgRejections:
    """SOUL.md rules that screening refused."""

    def __init__(self, tenant: Tenant) -> None:
        self._tenant = tenant

    def append(self, rules: Iterable[RejectedRule], *, time: datetime) -> None:
        """Record ``rules`` as refused at ``time``."""
        rows = [(self._tenant.id, time, r.file, to_db(r.rule), to_db(r.reason)) for r in rules]
        if not rows:
            return
        with self._tenant.transaction() as conn, conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO rejections (workspace_id, at, file, rule, reason)"
                " VALUES (%s, %s, %s, %s, %s)",
                rows,
            )

    def latest(self, n: int = 10) -> list[RecordedRejection]:
        """The last ``n`` refused rules, oldest first."""
        if n <= 0:
            return []
        with self._tenant.transaction() as conn:
            rows = conn.execute(
                "SELECT at, file, rule, reason FROM rejections WHERE workspace_id = %s"
                " ORDER BY id DESC LIMIT %s",
                (self._tenant.id, n),
            ).fetchall()
        return [
            RecordedRejection(
                time=cast("datetime", at),
                rule=RejectedRule(
                    file=str(file), rule=from_db(str(rule)), reason=from_db(str(why))
                ),
            )
            for at, file, rule, why in reversed(rows)
        ]


class PgQuarantine:
    """Lines taken out of an import or a damaged record, kept with where they were."""

    def __init__(self, tenant: Tenant) -> None:
        self._tenant = tenant

    def keep(self, bad_lines: Sequence[BadLine], *, now: datetime) -> None:
        """Record ``bad_lines`` (their original bytes included)."""
        rows = [
            (self._tenant.id, now, str(b.source), b.line, b.offset, b.raw, to_db(b.reason))
            for b in bad_lines
        ]
        if not rows:
            return
        with self._tenant.transaction() as conn, conn.cursor() as cur:
            cur.executemany(
                'INSERT INTO quarantine (workspace_id, at, source, line, "offset", raw, reason)'
                " VALUES (%s, %s, %s, %s, %s, %s, %s)",
                rows,
            )

    def records(self) -> list[BadLine]:
        """Every line kept so far, oldest first."""
        with self._tenant.transaction() as conn:
            rows = conn.execute(
                'SELECT source, line, "offset", raw, reason FROM quarantine'
                " WHERE workspace_id = %s ORDER BY id",
                (self._tenant.id,),
            ).fetchall()
        return [
            BadLine(
                source=Path(str(source)),
                line=int(str(line)),
                offset=int(str(offset)),
                raw=bytes(cast("bytes", raw)),
                reason=from_db(str(reason)),
            )
            for source, line, offset, raw, reason in rows
        ]
