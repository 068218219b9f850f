"""The worker threads the proxy's routes run engine calls in: one limiter for both.

Engine calls are synchronous, so the OpenAI routes (``/v1/chat/completions`` in ``proxy``,
``/v1/responses`` in ``responses``) run each one in a worker thread. ``EngineWorkers`` gives
them their own ``CapacityLimiter`` of ``threads``, not anyio's default one (40 threads, shared
with the bearer check, the memories API and MCP), so sessions waiting on a slow memory model
never hold the threads another session, or another route, needs to start. The limiter is made
in the event loop that first uses it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import anyio
import anyio.to_thread

from reverie.engine.facade import MemoryEngine
from reverie.engine.owners import EnginePool
from reverie.serve.gate import Admitted

DEFAULT_THREADS = 256

T = TypeVar("T")


class EngineWorkers:
    """Runs jobs on an admitted principal's engine, at most ``threads`` at once.

    ``jobs_run`` counts the jobs started, for the server's own accounting and its tests.
    """

    def __init__(self, pool: EnginePool, *, threads: int = DEFAULT_THREADS) -> None:
        if threads < 1:
            raise ValueError(f"threads must be at least 1, not {threads}")
        self._pool = pool
        self.threads = threads
        self._limiter: anyio.CapacityLimiter | None = None
        self.jobs_run = 0

    async def run(self, admitted: Admitted, job: Callable[[MemoryEngine], T]) -> T:
        """Run ``job`` on the principal's engine in one of these worker threads."""
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(self.threads)
        self.jobs_run += 1
        return await anyio.to_thread.run_sync(self._use, admitted, job, limiter=self._limiter)

    def _use(self, admitted: Admitted, job: Callable[[MemoryEngine], T]) -> T:
        with self._pool.lease(admitted.principal, create=admitted.create) as engine:
            return job(engine)
