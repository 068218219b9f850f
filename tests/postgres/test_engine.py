"""``MemoryEngine`` on a PostgreSQL workspace: selection, the operations that run, the refusals."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from reverie.engine.facade import MemoryEngine
from reverie.errors import (
    ConfigError,
    DatabaseError,
    DreamError,
    StoreUnsupportedError,
)
from reverie.memory.dream.result import DreamResult
from reverie.storage.postgres.backend import PgBackend
from reverie.testing.folders import workspace_of
from tests.llm.loopback import LoopbackServer, chat_text
from tests.postgres.conftest import new_workspace

pytestmark = pytest.mark.slow


@pytest.fixture
def name(pg_url: str) -> str:
    """A new, empty workspace in the test database."""
    return new_workspace(pg_url, "eng")


@pytest.fixture
def memory(pg_url: str, name: str) -> Iterator[MemoryEngine]:
    with MemoryEngine.open(name, store=pg_url, environ={}, dense="off") as opened:
        yield opened


def _said(memory: MemoryEngine, key: str, user: str, reply: str) -> None:
    memory.record(key, [{"role": "user", "content": user}, {"role": "assistant", "content": reply}])


def test_the_store_selects_the_database_workspace(pg_url: str, name: str, tmp_path: Path) -> None:
    with MemoryEngine.open(name, environ={"REVERIE_STORE": pg_url}, dense="off") as by_env:
        assert name in by_env.location
    folder = tmp_path / "team"
    folder.mkdir()
    (folder / "reverie.toml").write_text(
        f'[store]\nurl = "{pg_url}"\nworkspace = "{name}"\n', encoding="utf-8"
    )
    with MemoryEngine.open(folder, environ={}, dense="off") as by_file:
        assert name in by_file.location
    with MemoryEngine.open(tmp_path / "plain", environ={}, dense="off") as plain:
        assert plain.location == str(tmp_path / "plain")
    with pytest.raises(DatabaseError, match="no such workspace"):
        MemoryEngine.open("nobody-here", store=pg_url, environ={}, dense="off")
    with pytest.raises(ConfigError, match="postgresql://"):
        MemoryEngine.open(name, store="mysql://db/x", environ={}, dense="off")


def test_record_compact_search_prompt_and_status_run_on_the_database(
    memory: MemoryEngine,
) -> None:
    _said(memory, "tg:mira", "I moved to Utrecht last spring", "Noted, Utrecht.")
    _said(memory, "tg:mira", "My cat is called Pixel", "Pixel, nice name.")
    assert memory.compact("tg:mira").outcome == "summarised"
    entries = memory.history()
    assert [e.cursor for e in entries] == list(range(1, len(entries) + 1))
    assert any("Utrecht" in e.content for e in entries)
    assert memory.search("Utrecht")
    assert "Pixel" in memory.recall("what is my cat called?").text
    prompt = memory.prompt("tg:other", "Is Pixel still around?")
    assert "Pixel" in "\n".join(str(m.content) for m in prompt.messages)
    status = memory.status()
    assert status.last_cursor == len(entries)
    assert status.pending_entries == len(entries)
    assert not status.next_dream.run  # two entries: under the pending trigger, within the interval
    assert status.last_dream.last_attempt is None
    assert [s.key for s in memory.sessions()] == ["tg:mira"]
    assert memory.session("tg:mira").compacted_upto == 4
    assert memory.read_memory("USER") == memory.read_file("USER.md")
    assert memory.dream_if_due() is None


def test_compaction_with_a_model_is_metered_in_the_database(
    pg_url: str, name: str, loopback: LoopbackServer
) -> None:
    env = {
        "REVERIE_MODEL": "m",
        "REVERIE_BASE_URL": loopback.base_url,
        "REVERIE_API_KEY": "k",
    }
    loopback.script(chat_text("- [fact] Mira lives in Utrecht"))
    with MemoryEngine.open(name, store=pg_url, environ=env, dense="off") as memory:
        assert memory.mode == "model"
        _said(memory, "tg:mira", "I moved to Utrecht last spring", "Noted.")
        assert memory.compact("tg:mira").outcome == "summarised"
        assert "Mira lives in Utrecht" in memory.history()[-1].content
        assert memory.costs().by_job["compaction"].calls == 1
    assert loopback.pending() == 0


REFUSED: list[tuple[str, Callable[[MemoryEngine, Path], object]]] = [
    ("workspace_of", lambda m, _p: workspace_of(m)),  # the folder itself (test support)
]


@pytest.mark.parametrize(
    ("operation", "call"), REFUSED, ids=[f"{o}-{i}" for i, (o, _) in enumerate(REFUSED)]
)
def test_file_level_operations_refuse_and_change_nothing(
    memory: MemoryEngine,
    pg_url: str,
    name: str,
    tmp_path: Path,
    operation: str,
    call: Callable[[MemoryEngine, Path], object],
) -> None:
    _said(memory, "tg:mira", "I moved to Utrecht", "Noted.")
    memory.compact("tg:mira")
    before = (memory.history(), memory.log(), memory.read_memory("MEMORY"), memory.sessions())
    with pytest.raises(StoreUnsupportedError, match=operation) as refused:
        call(memory, tmp_path)
    assert "reverie store export" in str(refused.value)
    after = (memory.history(), memory.log(), memory.read_memory("MEMORY"), memory.sessions())
    assert after == before
    backend = PgBackend.open(pg_url, name)
    try:
        with backend.lock("dream").hold(timeout=0):  # no lease left behind
            pass
    finally:
        backend.close()


def test_a_model_free_dream_runs_once_across_servers(pg_url: str, name: str) -> None:
    backend = PgBackend.open(pg_url, name)
    backend.audit.commit("start", allow_empty=True)
    backend.close()
    with MemoryEngine.open(name, store=pg_url, environ={}, dense="off") as memory:
        _said(memory, "tg:mira", "I live in Utrecht and I work as a nurse.", "Noted.")
        _said(memory, "tg:mira", "Always answer me in Dutch.", "Goed.")
        memory.compact("tg:mira")
        last = memory.history()[-1].cursor
        dry = memory.dream(dry_run=True)
        assert dry.outcome == "completed"
        assert "Utrecht" in dry.diff
        assert memory.status().dream_cursor == 0
    results: list[DreamResult] = []
    start = threading.Barrier(3)

    def dream() -> None:  # each "server" has its own pool and lease holder
        with MemoryEngine.open(name, store=pg_url, environ={}, dense="off") as server:
            start.wait()
            results.append(server.dream())

    servers = [threading.Thread(target=dream) for _ in range(3)]
    for thread in servers:
        thread.start()
    for thread in servers:
        thread.join(timeout=60)
    outcomes = sorted(r.outcome for r in results)
    assert outcomes.count("completed") == 1
    assert set(outcomes) <= {"completed", "busy", "no_pending"}
    (done,) = [r for r in results if r.outcome == "completed"]
    assert done.cursor_after == last
    with MemoryEngine.open(name, store=pg_url, environ={}, dense="off") as memory:
        assert "Utrecht" in memory.read_memory("USER")
        dreams = [c for c in memory.log() if c.subject.startswith("dream:")]
        assert [c.subject for c in dreams] == ["dream: manual (model-free)"]
        assert memory.status().dream_cursor == last
        assert memory.dream().outcome == "no_pending"
        assert "dream" in memory.costs().by_job
        before_dream = memory.log()[1].sha
        memory.restore(before_dream)
        assert "Utrecht" not in memory.read_memory("USER")
        assert memory.status().dream_cursor == 0  # the batch will be dreamt again
        assert memory.dream().cursor_after == last


def test_a_publish_whose_batch_was_consumed_meanwhile_writes_nothing(
    pg_url: str, name: str
) -> None:
    backend = PgBackend.open(pg_url, name)
    try:
        backend.history.append("User: lives in Utrecht")
        backend.audit.publish({"USER.md": "# User\n- x\n"}, subject="dream: a", dream_cursor=1)
        with pytest.raises(DreamError, match="moved from 0 to 1"):
            backend.audit.publish(
                {"USER.md": "# User\n- y\n"},
                subject="dream: b",
                dream_cursor=1,
                expected_cursor=0,
            )
        assert backend.files.read("USER") == "# User\n- x\n"
        assert backend.audit.log()[0].subject == "dream: a"
    finally:
        backend.close()


def test_doctor_checks_a_database_workspace(pg_url: str, name: str) -> None:
    with MemoryEngine.open(name, store=pg_url, environ={}, dense="off") as memory:
        _said(memory, "tg:mira", "I live in Utrecht.", "Noted.")
        memory.compact("tg:mira")
        assert memory.doctor().ok
    backend = PgBackend.open(pg_url, name)
    try:
        backend.files.write("MEMORY", "# Memory\n- the deploy key is AKIAIOSFODNN7EXAMPLE\n")
    finally:
        backend.close()
    with MemoryEngine.open(name, store=pg_url, environ={}, dense="off") as memory:
        report = memory.doctor()
    assert not report.ok
    checks = {(f.severity, f.check) for f in report.findings}
    assert ("problem", "secrets") in checks
    assert ("note", "audit") in checks  # the edit is not committed yet
