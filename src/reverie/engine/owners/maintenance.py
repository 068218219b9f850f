"""Background memory work for every principal of a server: one fair queue, bounded threads.

A server with many principals cannot give each one a background thread, and must not let
one principal's slow or failing model hold up the others. ``Maintenance`` keeps one queue of
principals ordered by when their next check is due; ``workers`` threads take the principal
that has waited longest, lease its engine from the pool and run the pass every surface runs
(``reverie.engine.maintenance.maintain``): compact its idle sessions (leaving the ones
``busy`` names: an exchange is in flight) and run dream when its schedule says so.

Who is watched: a principal is checked from the moment it is ``touch``-ed (the server calls
it after each exchange) every ``interval`` seconds, until ``watch_seconds`` have passed
without a touch (long enough for idle compaction and the dream schedule to come due). A
check that fails with a ``ReverieError`` (the model is down, a lock is busy) puts that
principal back after a back-off that doubles up to ``max_backoff`` seconds; the others keep
their turn. On a database shared by several servers, dream's own lease makes one server
run a workspace's dream and the others see ``busy``.

Time is injected (``clock``, monotonic seconds). ``run_due`` runs every due check in the
calling thread, for tests and benchmarks; the context manager starts and stops the threads
(a check in progress is finished, never cut short).
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Self

from reverie.engine.maintenance import maintain
from reverie.errors import ReverieError

if TYPE_CHECKING:
    from reverie.engine.owners.pool import EnginePool

logger = logging.getLogger(__name__)

DEFAULT_INTERVAL = 30.0
DEFAULT_WATCH = 3 * 3600.0
DEFAULT_MAX_BACKOFF = 3600.0


@dataclass(slots=True)
class _Watched:
    touched: float
    failures: int = 0
    queued: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckReport:
    """What one principal's check did (lines for a person) or how it failed."""

    principal: str
    lines: tuple[str, ...] = ()
    error: str | None = None
    waited: float = 0.0
    """Seconds between the check coming due and it starting (the queue's fairness)."""


@dataclass(slots=True)
class MaintenanceStats:
    """Checks run and failed, and the longest any principal waited past its due time."""

    checks: int = 0
    failures: int = 0
    longest_wait: float = 0.0
    waits: list[float] = field(default_factory=list)


class Maintenance:
    """A fair queue of background compaction and dream over the principals of a pool."""

    def __init__(
        self,
        pool: EnginePool,
        *,
        workers: int = 2,
        interval: float = DEFAULT_INTERVAL,
        watch_seconds: float = DEFAULT_WATCH,
        max_backoff: float = DEFAULT_MAX_BACKOFF,
        busy: Callable[[str], Collection[str]] = lambda _principal: (),
        report: Callable[[CheckReport], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if workers < 1:
            raise ValueError("maintenance needs at least one worker")
        self._pool = pool
        self._workers = workers
        self._interval = interval
        self._watch = watch_seconds
        self._max_backoff = max_backoff
        self._busy = busy
        self._report = report
        self._clock = clock
        self._queue: list[tuple[float, int, str]] = []
        self._order = itertools.count()
        self._watched: dict[str, _Watched] = {}
        self._changed = threading.Condition()
        self._stop = False
        self._threads: list[threading.Thread] = []
        self.stats = MaintenanceStats()

    def touch(self, principal: str) -> None:
        """``principal`` had activity: watch it, its first check due one interval from now."""
        now = self._clock()
        with self._changed:
            watched = self._watched.setdefault(principal, _Watched(touched=now))
            watched.touched = now
            if not watched.queued:
                self._push(principal, now + self._interval)
            self._changed.notify()

    def watched(self) -> list[str]:
        """The principals being watched, sorted."""
        with self._changed:
            return sorted(self._watched)

    def _push(self, principal: str, due: float) -> None:
        self._watched[principal].queued = True
        heapq.heappush(self._queue, (due, next(self._order), principal))

    def run_due(self) -> list[CheckReport]:
        """Run every check that is due now, in this thread, oldest first."""
        done = []
        while (job := self._next(block=False)) is not None:
            done.append(self._check(*job))
        return done

    def _next(self, *, block: bool) -> tuple[str, float] | None:
        with self._changed:
            while not self._stop:
                now = self._clock()
                if self._queue and self._queue[0][0] <= now:
                    due, _, principal = heapq.heappop(self._queue)
                    self._watched[principal].queued = False
                    return principal, now - due
                if not block:
                    return None
                wait = self._queue[0][0] - now if self._queue else None
                self._changed.wait(wait)
            return None

    def _check(self, principal: str, waited: float) -> CheckReport:
        try:
            lines = self._work(principal)
        except ReverieError as exc:
            report = CheckReport(principal=principal, error=str(exc), waited=waited)
            logger.warning("background work for principal %r failed: %s", principal, exc)
        except Exception as exc:
            # A bug in one principal's check must not end the worker silently (the principal
            # would stay watched and never be checked again, and every later check would
            # wait): it is logged with its traceback and that principal backs off like any
            # failure, while the others keep their turn.
            logger.exception("background work for principal %r hit a bug", principal)
            report = CheckReport(principal=principal, error=f"bug: {exc!r}", waited=waited)
        else:
            report = CheckReport(principal=principal, lines=tuple(lines), waited=waited)
        self._after(report)
        if self._report is not None:
            self._report(report)
        return report

    def _work(self, principal: str) -> list[str]:
        with self._pool.lease(principal) as engine:  # the one pass every surface runs
            return maintain(engine, busy=self._busy(principal)).lines()

    def _after(self, report: CheckReport) -> None:
        now = self._clock()
        with self._changed:
            self.stats.checks += 1
            self.stats.waits.append(report.waited)
            self.stats.longest_wait = max(self.stats.longest_wait, report.waited)
            watched = self._watched.get(report.principal)
            if watched is None:
                return
            if report.error is not None:
                self.stats.failures += 1
                watched.failures += 1
                delay = min(self._max_backoff, self._interval * 2**watched.failures)
            else:
                watched.failures = 0
                delay = self._interval
            if report.error is None and now - watched.touched >= self._watch:
                del self._watched[report.principal]  # quiet for long enough: stop watching
            elif not watched.queued:
                self._push(report.principal, now + delay)
            self._changed.notify()

    def forget(self, principal: str) -> None:
        """Stop watching ``principal`` (it was deleted)."""
        with self._changed:
            self._watched.pop(principal, None)
            self._queue = [job for job in self._queue if job[2] != principal]
            heapq.heapify(self._queue)

    def _loop(self) -> None:
        while (job := self._next(block=True)) is not None:
            self._check(*job)

    def __enter__(self) -> Self:
        for number in range(self._workers):
            thread = threading.Thread(
                target=self._loop, name=f"reverie-maintenance-{number}", daemon=True
            )
            thread.start()
            self._threads.append(thread)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        with self._changed:
            self._stop = True
            self._changed.notify_all()
        for thread in self._threads:
            thread.join()
