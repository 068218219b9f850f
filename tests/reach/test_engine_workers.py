"""The OpenAI routes run their engine calls on one set of worker threads (``EngineWorkers``).

Both ``/v1/chat/completions`` and ``/v1/responses`` go through the proxy's own limiter, never
anyio's default one; at most ``threads`` engine calls run at once, and a bad size is refused.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import anyio
import openai
import pytest

from reverie import MemoryEngine
from reverie.engine.owners import DEFAULT_PRINCIPAL, Access
from reverie.serve import Upstream, create_app
from reverie.serve.gate import Admitted
from reverie.serve.workers import EngineWorkers
from tests.llm.loopback import LoopbackServer, chat_text
from tests.reach.conftest import SESSION, TOKEN, new_home
from tests.reach.running import ServedApp


def test_no_more_than_threads_engine_calls_run_at_once(tmp_path: Path) -> None:
    parts = new_home(tmp_path)
    workers = EngineWorkers(parts.pool, threads=2)
    admitted = Admitted(access=Access(principal=DEFAULT_PRINCIPAL), create=True)
    lock = threading.Lock()
    pair = threading.Barrier(2, timeout=10)  # two calls must be running at once to pass it
    running = 0
    most = 0
    leased: list[MemoryEngine] = []

    def job(engine: MemoryEngine) -> None:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        pair.wait()
        time.sleep(0.02)  # a third call, if let in, would be counted while these two run
        with lock:
            running -= 1
            leased.append(engine)

    async def main() -> None:
        async with anyio.create_task_group() as group:
            for _ in range(6):
                group.start_soon(workers.run, admitted, job)

    try:
        anyio.run(main)
    finally:
        parts.pool.close()
    assert len(leased) == 6
    assert most == 2
    assert workers.jobs_run == 6


def test_a_size_below_one_is_refused(tmp_path: Path) -> None:
    parts = new_home(tmp_path)
    try:
        with pytest.raises(ValueError, match="threads must be at least 1, not 0"):
            EngineWorkers(parts.pool, threads=0)
    finally:
        parts.pool.close()


def test_the_responses_route_uses_the_proxys_workers(
    tmp_path: Path, loopback: LoopbackServer
) -> None:
    loopback.script(chat_text("it is Tuesday"), chat_text("noted"))
    parts = new_home(tmp_path)
    upstream = Upstream(base_url=loopback.base_url, api_key=None, model="chat-model", timeout=10)
    app = create_app(parts.pool, gate=parts.gate, upstream=upstream, threads=1)
    workers: EngineWorkers = app.state.proxy.workers
    try:
        with (
            ServedApp(app) as served,
            openai.OpenAI(base_url=served.url + "/v1", api_key=TOKEN, max_retries=0) as client,
        ):
            answer = client.responses.create(
                model="chat-model", input="what day is it?", extra_headers={SESSION: "r"}
            )
            assert answer.output_text == "it is Tuesday"
            after_responses = workers.jobs_run
            chat = client.chat.completions.create(
                model="chat-model",
                messages=[{"role": "user", "content": "remember it"}],
                extra_headers={SESSION: "c"},
            )
            assert chat.choices[0].message.content == "noted"
    finally:
        parts.pool.close()
    assert after_responses == 2  # prepared and recorded on the proxy's own threads
    assert workers.jobs_run == 4
    assert workers.threads == 1
