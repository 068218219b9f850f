"""Dream with a model on a database workspace shared by servers: once, fenced, crash-safe.

Through the engine and the real loopback model server (``tests.llm.loopback``): several
servers asked to dream at once run it once; a server whose lease was taken over publishes
nothing; a ``reverie dream`` killed with SIGKILL mid-run leaves no partial publish, and the
next one completes.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from reverie import ChatReply, ChatRequest, ScriptedProvider
from reverie.core.token_estimate import EstimatingCounter
from reverie.engine.facade import MemoryEngine
from reverie.memory.dream.result import DreamResult
from reverie.memory.dream.runner import Dreamer
from reverie.storage.postgres.backend import PgBackend
from reverie.storage.postgres.leases import PgLeases
from tests.dream.scripting import edit
from tests.llm.loopback import LoopbackServer, ScriptedResponse, chat_text, chat_tool_calls

pytestmark = pytest.mark.slow

USER = "# User\n\nIdentity and habits.\n"


@pytest.fixture
def name(pg_url: str) -> str:
    """A new workspace with its starter files committed and two entries to dream."""
    made = f"dm-{secrets.token_hex(5)}"
    backend = PgBackend.open(pg_url, made, create=True)
    try:
        backend.files.write("USER", USER)
        backend.audit.commit("start")
        backend.history.append("User: I'm Ada, I live in Lyon.", session_key="tg:ada")
        backend.history.append("User: I work as a nurse.", session_key="tg:ada")
    finally:
        backend.close()
    return made


def _model_env(loopback: LoopbackServer) -> dict[str, str]:
    return {
        "REVERIE_MODEL": "memory-model",
        "REVERIE_BASE_URL": loopback.base_url,
        "REVERIE_API_KEY": "test-key",
    }


def _edit_user(new: str, *, delay: float = 0.0) -> list[ScriptedResponse]:
    arguments = json.dumps({"path": "USER.md", "old_text": "habits.\n", "new_text": new})
    first = replace(chat_tool_calls([("c1", "edit_file", arguments)]), delay=delay)
    return [first, chat_text("Updated USER.md.")]


def test_servers_asked_to_dream_with_a_model_at_once_run_it_once(
    pg_url: str, name: str, loopback: LoopbackServer
) -> None:
    first, final = _edit_user("habits.\n\n- Lives in Lyon\n- Nurse\n", delay=1.0)
    loopback.script(first, final)
    results: list[DreamResult] = []
    start = threading.Barrier(3)

    def server() -> None:  # each "server" has its own pool and lease holder
        with MemoryEngine.open(
            name, store=pg_url, environ=_model_env(loopback), dense="off"
        ) as memory:
            start.wait()
            results.append(memory.dream())

    threads = [threading.Thread(target=server) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    outcomes = sorted(r.outcome for r in results)
    assert outcomes == ["busy", "busy", "completed"]
    (done,) = [r for r in results if r.outcome == "completed"]
    assert done.mode == "model"
    assert (done.cursor_before, done.cursor_after) == (0, 2)
    assert loopback.pending() == 0
    assert len(loopback.bodies()) == 2  # the busy servers never called the model
    with MemoryEngine.open(name, store=pg_url, environ=_model_env(loopback), dense="off") as memory:
        assert "- Lives in Lyon\n- Nurse" in memory.read_memory("USER")
        assert [c.subject for c in memory.log()] == ["dream: manual", "start"]
        assert memory.status().dream_cursor == 2
        assert memory.status().last_dream.last_success is not None
        assert memory.costs().by_job["dream"].calls == 2
        assert memory.dream().outcome == "no_pending"


def test_a_run_whose_lease_was_taken_over_publishes_nothing(pg_url: str, name: str) -> None:
    backend = PgBackend.open(pg_url, name)
    other = PgLeases(backend.tenant, holder="another-server")

    def stalled(_request: ChatRequest) -> ChatReply:
        # This server paused past its lease: it expires and another server takes it.
        with backend.tenant.transaction() as conn:
            conn.execute(
                "UPDATE leases SET expires_at = clock_timestamp() WHERE name = 'lock:dream'"
            )
        assert other.acquire("lock:dream", backend.lease_ttl) is not None
        return ChatReply(text="done", finish_reason="stop")

    provider = (
        ScriptedProvider()
        .reply(tool_calls=[edit("USER.md", "habits.\n", "habits.\n\n- Lives in Lyon\n")])
        .respond(stalled)
    )
    try:
        result = Dreamer(backend, provider, counter=EstimatingCounter()).run()
        assert result.outcome == "conflict"
        assert "lock was lost" in result.reason
        assert backend.files.read("USER") == USER
        assert backend.dream_cursor.read() == 0
        assert [c.subject for c in backend.audit.log()] == ["start"]
    finally:
        backend.close()


def _reverie_env(tmp_path: Path, loopback: LoopbackServer) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    return (
        env
        | _model_env(loopback)
        | {
            "HOME": str(tmp_path),
            "COLUMNS": "200",
            "REVERIE_LEASE_SECONDS": "3",
            "REVERIE_RECALL_EMBEDDINGS": "off",  # the suite's pin (tests/conftest.py)
        }
    )


def test_a_dream_killed_mid_run_publishes_nothing_and_the_next_one_completes(
    tmp_path: Path, pg_url: str, name: str, loopback: LoopbackServer
) -> None:
    env = _reverie_env(tmp_path, loopback)
    command = [sys.executable, "-m", "reverie", "--store", pg_url, "-w", name, "dream"]
    hanging, _ = _edit_user("habits.\n\n- KILLED RUN\n", delay=30.0)
    loopback.script(hanging)
    victim = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not loopback.bodies() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert loopback.bodies(), "the dream never reached the model"
    victim.send_signal(signal.SIGKILL)
    victim.communicate(timeout=30)
    backend = PgBackend.open(pg_url, name)
    try:
        assert backend.files.read("USER") == USER
        assert backend.dream_cursor.read() == 0
        assert [c.subject for c in backend.audit.log()] == ["start"]
    finally:
        backend.close()
    time.sleep(3.5)  # the killed server's lease expires (REVERIE_LEASE_SECONDS=3)
    loopback.script(*_edit_user("habits.\n\n- Lives in Lyon\n"))
    # The next run, in this process (``reverie dream`` with a model on a database workspace
    # is the command-line tests' part), with its own lease: no lapse on a loaded machine.
    environ = _model_env(loopback) | {"REVERIE_LEASE_SECONDS": "30"}
    with MemoryEngine.open(name, store=pg_url, environ=environ, dense="off") as memory:
        done = memory.dream()
    assert (done.outcome, done.mode, done.trigger) == ("completed", "model", "manual"), done
    assert (done.cursor_before, done.cursor_after) == (0, 2)
    backend = PgBackend.open(pg_url, name)
    try:
        assert "- Lives in Lyon" in backend.files.read("USER")
        assert "KILLED RUN" not in backend.files.read("USER")
        assert [c.subject for c in backend.audit.log()] == ["dream: manual", "start"]
        assert backend.dream_cursor.read() == 2
    finally:
        backend.close()
