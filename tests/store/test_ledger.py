from __future__ import annotations

from datetime import UTC, datetime

from reverie.core.ledger import LedgerRecord
from reverie.storage.folder.workspace import Workspace


def _record(job: str, tokens_in: int, outcome: str = "ok") -> LedgerRecord:
    return LedgerRecord(
        time=datetime(2026, 11, 30, 12, 0, tzinfo=UTC),
        job=job,
        outcome=outcome,
        model="m",
        tokens_in=tokens_in,
        tokens_out=10,
        duration_ms=1.5,
        session_key="cli:a",
    )


def test_ledger_round_trips_and_sums_by_job_and_day(workspace: Workspace) -> None:
    workspace.ledger.append(_record("compaction", 100))
    workspace.ledger.append(_record("compaction", 50, outcome="raw_fallback"))
    workspace.ledger.append(_record("dream", 300))
    records = list(workspace.ledger.records())
    assert records[0] == _record("compaction", 100)
    summary = workspace.ledger.summary()
    assert summary.by_job["compaction"].calls == 2
    assert summary.by_job["compaction"].tokens_in == 150
    assert summary.by_job["compaction"].outcomes == {"ok": 1, "raw_fallback": 1}
    day = datetime(2026, 11, 30, 12, 0, tzinfo=UTC).astimezone().strftime("%Y-%m-%d")
    assert summary.by_day[(day, "dream")].tokens_in == 300
    assert summary.unreadable == 0


def test_unreadable_ledger_lines_are_counted_not_hidden(workspace: Workspace) -> None:
    workspace.ledger.append(_record("dream", 1))
    with workspace.ledger.path.open("ab") as handle:
        handle.write(b'garbage\n\n{"time": "x"}\n')
    summary = workspace.ledger.summary()
    assert summary.by_job["dream"].calls == 1
    assert summary.unreadable == 2


def test_an_absent_ledger_is_empty(workspace: Workspace) -> None:
    assert list(workspace.ledger.records()) == []
    assert workspace.ledger.summary().by_job == {}
