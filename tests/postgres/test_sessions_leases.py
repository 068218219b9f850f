"""PostgreSQL lease fencing, and the quarantine's rows keeping a line's bytes and place.

The session store's scenarios run on both backends in ``tests/store/test_sessions.py``.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest

from reverie.storage.postgres.database import Tenant
from reverie.storage.postgres.leases import LeaseLostError, PgLeases


def test_a_lost_lease_fences_off_the_commit(tenant: Tenant) -> None:
    first = PgLeases(tenant, holder="server-1")
    second = PgLeases(tenant, holder="server-2")
    lease = first.acquire("dream", timedelta(milliseconds=200))
    assert lease is not None
    assert second.acquire("dream", timedelta(seconds=5)) is None
    with tenant.transaction() as conn:
        first.fence(conn, lease)  # still held: passes
    time.sleep(0.3)
    taken = second.acquire("dream", timedelta(seconds=5))
    assert taken is not None
    assert taken.token == lease.token + 1
    assert first.renew(lease, timedelta(seconds=5)) is None
    with pytest.raises(LeaseLostError, match="taken over"), tenant.transaction() as conn:
        first.fence(conn, lease)
    second.release(taken)
    again = first.acquire("dream", timedelta(seconds=5))
    assert again is not None
    assert again.token == taken.token + 1


def test_quarantined_lines_keep_their_bytes_and_place(tenant: Tenant) -> None:
    from pathlib import Path

    from reverie.core.entries import BadLine
    from reverie.storage.postgres.records import PgQuarantine

    quarantine = PgQuarantine(tenant)
    bad = BadLine(source=Path("import.jsonl"), line=7, offset=120, raw=b"\xff{", reason="bad")
    quarantine.keep([bad], now=datetime(2026, 11, 30, tzinfo=UTC))
    quarantine.keep([], now=datetime(2026, 11, 30, tzinfo=UTC))
    assert quarantine.records() == [bad]
