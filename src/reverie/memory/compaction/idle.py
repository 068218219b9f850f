"""Idle compaction: compact the pending turns of sessions nobody has talked to for a while.

``IdleScanner.scan`` looks at every session's ``SessionInfo`` (no messages read) and compacts
those idle longer than the TTL that still have pending messages, skipping internal sessions
(``dream:``, ``cron:``) and sessions with a turn in flight (their turn lock is held by some
thread or process). The summary it stores opens the session's next prompt. A TTL of 0 disables
the scan. Time comes from the injected clock.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from reverie.core.clock import Clock
from reverie.core.session import is_internal
from reverie.memory.compaction.compactor import Compactor
from reverie.memory.compaction.result import CompactionResult
from reverie.storage.ports import SessionsPort


class IdleScanner:
    """Finds idle sessions and compacts them."""

    def __init__(
        self,
        sessions: SessionsPort,
        compactor: Compactor,
        *,
        ttl_minutes: float,
        clock: Clock,
        in_flight: Callable[[str], bool],
    ) -> None:
        self._sessions = sessions
        self._compactor = compactor
        self._ttl = timedelta(minutes=ttl_minutes)
        self._clock = clock
        self._in_flight = in_flight

    def idle_keys(self) -> list[str]:
        """Keys of sessions idle past the TTL with pending messages, oldest first."""
        if self._ttl <= timedelta(0):
            return []
        cutoff = self._clock() - self._ttl
        infos = [
            info
            for info in self._sessions.list()
            if info.updated_at <= cutoff
            and info.compacted_upto < info.message_count
            and not is_internal(info.key)
        ]
        return [info.key for info in sorted(infos, key=lambda info: info.updated_at)]

    def scan(self) -> dict[str, CompactionResult]:
        """Compact every idle session that has no turn in flight; return the results by key."""
        results: dict[str, CompactionResult] = {}
        for key in self.idle_keys():
            if self._in_flight(key):
                results[key] = CompactionResult(outcome="busy", tokens_before=0, tokens_after=0)
                continue
            results[key] = self._compactor.compact_all(key, reason="idle")
        return results
