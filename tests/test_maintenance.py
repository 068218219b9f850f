"""Background maintenance of one engine: the pass, the worker thread, and how it ends."""

from __future__ import annotations

import logging
import os
import queue
import subprocess
import sys
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Literal

import pytest

from reverie import LockTimeoutError, Message, ModelConnectionError, ScriptedProvider
from reverie.config.sections import CompactionConfig, DreamConfig, ModelConfig
from reverie.config.settings import Config
from reverie.engine.async_engine import AsyncMemoryEngine
from reverie.engine.facade import MemoryEngine
from reverie.engine.maintenance import MaintenancePass, MaintenanceWorker, maintain
from tests.conftest import StepClock

DreamMode = Literal["model", "model-free"]
ROOT = Path(__file__).parents[1]
WAIT = 60.0  # seconds a test waits for a pass before it fails (never a speed assertion)


def _config(mode: DreamMode = "model-free") -> Config:
    return Config(
        model=ModelConfig(model="chat", context_window=8000, max_output_tokens=500),
        compaction=CompactionConfig(idle_minutes=15),
        dream=DreamConfig(mode=mode, pending_trigger=1, interval_minutes=0),
    )


def _engine(
    root: Path,
    clock: StepClock,
    model: ScriptedProvider | None = None,
    mode: DreamMode = "model-free",
) -> MemoryEngine:
    return MemoryEngine.open(
        root,
        _config(mode),
        provider=model or ScriptedProvider(),
        clock=clock,
        environ={},
        dense="off",
    )


def _talk(engine: MemoryEngine, key: str) -> None:
    engine.record(
        key,
        [
            Message(role="user", content="My name is Ada and I live in Lima."),
            Message(role="assistant", content="Hello Ada."),
        ],
    )


def _passes() -> tuple[queue.Queue[MaintenancePass], Callable[[MaintenancePass], None]]:
    done: queue.Queue[MaintenancePass] = queue.Queue()
    return done, done.put


def test_one_pass_compacts_idle_sessions_except_busy_ones_then_dreams(
    tmp_path: Path, clock: StepClock
) -> None:
    engine = _engine(tmp_path / "ws", clock)
    _talk(engine, "tg:idle")
    _talk(engine, "tg:mine")
    assert maintain(engine).lines() == []  # nothing is idle yet, nothing to dream
    clock.advance(timedelta(minutes=30))
    done = maintain(engine, busy=["tg:mine"])
    assert done.compactions["tg:idle"].outcome == "summarised"
    assert done.compactions["tg:mine"].outcome == "busy"
    assert done.dream is not None
    assert done.dream.outcome == "completed"
    assert done.lines() == ["idle compaction of tg:idle: summarised", "dream: completed"]
    assert engine.session("tg:mine").compacted_upto == 0
    assert maintain(engine, busy=["tg:mine"]).lines() == []


def test_the_engine_worker_compacts_an_idle_session_and_stops_on_close(
    tmp_path: Path, clock: StepClock
) -> None:
    engine = _engine(tmp_path / "ws", clock)
    _talk(engine, "tg:idle")
    clock.advance(timedelta(minutes=30))
    done, report = _passes()
    worker = engine.start_maintenance(interval=0.01, report=report)
    started = worker.running
    with pytest.raises(RuntimeError, match="already running"):
        engine.start_maintenance(interval=0.01)
    first = done.get(timeout=WAIT)
    assert first.compactions["tg:idle"].outcome == "summarised"
    assert first.dream is not None
    assert first.dream.outcome == "completed"
    assert engine.session("tg:idle").compacted_upto == 2
    engine.close()
    assert (started, worker.running) == (True, False)
    passes = worker.passes
    assert done.qsize() == passes - 1  # every pass was reported, none runs after close


def test_dream_runs_when_it_comes_due(tmp_path: Path, clock: StepClock) -> None:
    engine = _engine(tmp_path / "ws", clock)
    worker = MaintenanceWorker(engine)  # its passes, run here one at a time
    assert worker.run_once().dream is None  # no history entry: dream is not due
    _talk(engine, "tg:a")
    engine.compact("tg:a")  # one entry pending: with pending_trigger 1, dream is due
    dreamed = worker.run_once().dream
    assert dreamed is not None
    assert dreamed.outcome == "completed"
    assert dreamed.trigger.startswith("pending-count")
    assert worker.run_once().dream is None
    assert worker.passes == 3


def test_a_failing_model_does_not_stop_the_worker(tmp_path: Path, clock: StepClock) -> None:
    model = ScriptedProvider()
    for _ in range(2):
        model.fail(ModelConnectionError("cannot reach http://127.0.0.1:9/v1"))
    engine = _engine(tmp_path / "ws", clock, model, mode="model")
    _talk(engine, "tg:a")
    clock.advance(timedelta(minutes=30))
    done, report = _passes()
    with engine.start_maintenance(interval=0.01, report=report) as worker:
        failed = done.get(timeout=WAIT)
        later = done.get(timeout=WAIT)  # a further pass: the worker went on
        alive = worker.running
    assert failed.compactions["tg:a"].outcome == "raw_fallback"  # kept verbatim, not lost
    assert failed.dream is not None
    assert failed.dream.outcome == "failed"
    assert later.error is None
    assert (alive, worker.running) == (True, False)
    engine.close()


def test_a_pass_that_raises_is_logged_reported_and_the_worker_goes_on(
    tmp_path: Path, clock: StepClock, caplog: pytest.LogCaptureFixture
) -> None:
    engine = _engine(tmp_path / "ws", clock)
    raised = iter([LockTimeoutError(tmp_path / "x.lock", 1.0), RuntimeError("a bug")])

    def busy() -> list[str]:
        error = next(raised, None)
        if error is not None:
            raise error
        return []

    done, report = _passes()
    with (
        caplog.at_level(logging.WARNING, logger="reverie.engine.maintenance"),
        MaintenanceWorker(engine, interval=0.01, busy=busy, report=report),
    ):
        errors = [done.get(timeout=WAIT).error for _ in range(3)]
    assert isinstance(errors[0], LockTimeoutError)
    assert isinstance(errors[1], RuntimeError)
    assert errors[2] is None
    assert "background maintenance failed: could not lock" in caplog.text
    assert "background maintenance hit a bug" in caplog.text
    assert MaintenancePass(error=errors[1]).lines() == ["failed: a bug"]
    engine.close()


HOLDER = """
import sys
from reverie.storage.folder.workspace import Workspace
from reverie.memory.dream.edit import hold_dream

with hold_dream(Workspace.open(sys.argv[1]), timeout=30):
    print("held", flush=True)
    sys.stdin.readline()
"""


def _python(code: str, *args: str) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep + str(ROOT))
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    )


def test_a_dream_lock_held_by_another_process_is_skipped_and_tried_again(
    tmp_path: Path, clock: StepClock
) -> None:
    root = tmp_path / "ws"
    engine = _engine(root, clock)
    _talk(engine, "tg:a")
    engine.compact("tg:a")
    holder = _python(HOLDER, str(root))
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == "held\n"
        done, report = _passes()
        with engine.start_maintenance(interval=0.01, report=report):
            skipped = done.get(timeout=WAIT)
            assert skipped.error is None
            assert skipped.dream is not None
            assert skipped.dream.outcome == "busy"
            assert skipped.lines() == []  # busy is quiet: the other process is dreaming
            holder.communicate("release\n", timeout=WAIT)
            while (later := done.get(timeout=WAIT)).dream is None or later.dream.outcome == "busy":
                pass
        assert later.dream.outcome == "completed"
        assert engine.status().dream_cursor == 1
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.communicate()
    assert holder.returncode == 0
    engine.close()


EXITING = """
import queue, sys
from reverie import Message, ScriptedProvider
from reverie.config.settings import Config
from reverie.config.sections import DreamConfig
from reverie.engine.facade import MemoryEngine

config = Config(dream=DreamConfig(mode="model-free", pending_trigger=1, interval_minutes=0))
engine = MemoryEngine.open(sys.argv[1], config, provider=ScriptedProvider(), environ={})
engine.record("tg:a", [Message(role="user", content="I moved to Quito.")])
engine.compact("tg:a")
done = queue.Queue()
engine.start_maintenance(interval=0.001, report=done.put)
print(done.get(timeout=60).dream.outcome, flush=True)
# ends here, the worker still running and the engine open
"""


def test_the_interpreter_exits_cleanly_with_a_worker_running(tmp_path: Path) -> None:
    child = _python(EXITING, str(tmp_path / "ws"))
    out, err = child.communicate(timeout=WAIT * 2)
    assert (child.returncode, out, err) == (0, "completed\n", "")


def test_the_async_twin_starts_the_same_worker(tmp_path: Path, clock: StepClock) -> None:
    import asyncio

    async def run() -> MaintenanceWorker:
        memory = AsyncMemoryEngine(_engine(tmp_path / "ws", clock))
        worker = await memory.start_maintenance(interval=30)
        assert worker.running
        await memory.close()
        return worker

    assert not asyncio.run(run()).running


def test_the_interval_must_be_positive(tmp_path: Path, clock: StepClock) -> None:
    with pytest.raises(ValueError, match="positive interval"):
        MaintenanceWorker(_engine(tmp_path / "ws", clock), interval=0)
