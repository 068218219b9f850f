"""Ingest under bad input and interruption (issue #14), in one process: clear errors, no loss."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from reverie import Message
from reverie.config import bounded
from reverie.config.settings import Config
from reverie.engine.facade import MemoryEngine
from reverie.errors import IngestBusyError, InputTooLargeError, ReverieError
from reverie.memory.ingest.guard import begin, hold_ingest
from reverie.storage.folder.layout import INGEST_MARKER
from tests.cli.conftest import clean_env
from tests.conftest import StepClock
from tests.ingest.targets import Target


def _engine(tmp_path: Path, clock: StepClock) -> MemoryEngine:
    return MemoryEngine.open(tmp_path / "ws", Config(), clock=clock, environ={}, dense="off")


def _chat(path: Path, *messages: dict[str, object]) -> Path:
    path.write_text(json.dumps([{"id": path.stem, "messages": list(messages)}]), "utf-8")
    return path


def _user(text: str) -> dict[str, object]:
    return {"role": "user", "content": text, "timestamp": "2026-03-01T10:00:00+00:00"}


def test_a_lone_surrogate_in_a_file_is_replaced_and_counted(
    tmp_path: Path, clock: StepClock
) -> None:
    engine = _engine(tmp_path, clock)
    source = tmp_path / "chat.json"
    source.write_text(
        '[{"id": "s", "messages": [{"role": "user", "content": "I live in Oslo \\ud83d.",'
        ' "timestamp": "2026-03-01T10:00:00+00:00"}]}]',
        encoding="utf-8",
    )
    report = engine.ingest([source])
    assert report.replaced == 1
    assert report.messages_added == 1
    again = engine.ingest([source])
    assert again.messages_added == 0  # the stored U+FFFD matches its source: no duplicate
    assert engine.search("Oslo")
    assert engine.doctor().ok
    engine.close()


def test_deep_nesting_in_a_file_is_a_problem_or_an_error_never_a_traceback(
    tmp_path: Path, clock: StepClock
) -> None:
    engine = _engine(tmp_path, clock)
    deep: object = "x"
    for _ in range(200):
        deep = [deep]
    source = _chat(tmp_path / "deep.json", _user("I prefer tea."), {**_user("hi"), "meta": deep})
    report = engine.ingest([source])
    assert report.messages_added == 1
    assert "nested deeper" in report.problems[0].reason
    lines = tmp_path / "deep.jsonl"
    lines.write_text(
        json.dumps(_user("fine")) + "\n" + "[" * 100_000 + "]" * 100_000 + "\n", "utf-8"
    )
    report = engine.ingest([lines])
    assert report.messages_added == 1
    assert "nested too deeply" in report.problems[0].reason
    whole = tmp_path / "whole.json"
    whole.write_text("[" * 100_000 + "]" * 100_000, "utf-8")
    with pytest.raises(ReverieError):
        engine.ingest([whole])
    engine.close()


def test_a_stream_past_its_cap_is_refused_and_a_short_one_is_read(
    tmp_path: Path, clock: StepClock
) -> None:
    engine = _engine(tmp_path, clock)
    with pytest.raises(InputTooLargeError, match="not a regular file") as refused:
        engine.ingest([Path("/dev/zero")])  # it never ends: refused past 64 MiB
    assert f"{bounded.MAX_STREAM_BYTES:,} bytes" in str(refused.value)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = os.fork()
    if writer == 0:  # pragma: no cover -- the child only feeds the pipe
        with fifo.open("wb") as handle:
            handle.write(json.dumps([[_user("I live in Lyon.")]]).encode())
        os._exit(0)
    report = engine.ingest([fifo])
    os.waitpid(writer, 0)
    assert report.messages_added == 1
    engine.close()


def test_a_fifo_nothing_writes_to_is_refused_not_waited_on_forever(tmp_path: Path) -> None:
    """``reverie ingest pipe`` as a person runs it, on a FIFO no program ever opens to write."""
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    workspace = tmp_path / "ws"
    done = subprocess.run(
        [sys.executable, "-m", "reverie", "-w", str(workspace), "ingest", str(fifo)],
        env=clean_env(tmp_path, workspace),
        capture_output=True,
        text=True,
        timeout=10 * bounded.FIFO_WAIT,  # before, it never ended
        check=False,
    )
    assert done.returncode == 1
    assert "a FIFO no program wrote to" in done.stderr
    assert str(fifo) in done.stderr
    assert "Traceback" not in done.stderr
    with pytest.raises(TimeoutError):
        bounded.read_bounded(fifo, fifo_wait=0.05)


def test_a_second_ingest_without_waiting_says_one_is_running(
    tmp_path: Path, ingest_target: Target
) -> None:
    engine = ingest_target.engine
    source = _chat(tmp_path / "a.json", _user("I prefer tea."))
    waits: list[str] = []
    with hold_ingest(ingest_target.stores):
        with pytest.raises(IngestBusyError, match="another ingest is running"):
            engine.ingest([source], wait=False)
        assert waits == []
    engine.ingest([source], on_progress=lambda stage, *_: waits.append(stage))
    assert "wait" not in waits


def test_doctor_finds_an_interrupted_ingest_and_the_next_ingest_finishes_it(
    tmp_path: Path, ingest_target: Target
) -> None:
    engine, stores = ingest_target.engine, ingest_target.stores
    # What a SIGKILL mid-replay leaves: messages appended, the run record, no history entry.
    stamp = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
    stores.sessions.append_many(
        "import:openai:old", [Message(role="user", content="I live in Porto.", timestamp=stamp)]
    )
    begin(stores, ["import:openai:old"])
    report = engine.doctor()
    (finding,) = [f for f in report.findings if f.check == "ingest"]
    assert not report.ok
    assert "1 session(s), 1 message(s) not yet compacted" in finding.message
    with hold_ingest(stores):  # an ingest running now is not an interrupted one
        assert not [f for f in engine.doctor().findings if f.check == "ingest"]
    engine.ingest([_chat(tmp_path / "other.json", _user("I prefer tea."))])
    assert stores.ingest_records.running() is None
    if ingest_target.kind == "folder":
        assert not (Path(engine.location) / INGEST_MARKER).exists()
    (info,) = [s for s in engine.sessions() if s.key == "import:openai:old"]
    assert info.compacted_upto == info.message_count == 1
    assert "Porto" in stores.files.read("USER")
    assert engine.doctor().ok


def test_a_workspace_is_never_ingested_into_itself(tmp_path: Path) -> None:
    """``reverie ingest`` of its own folder (by any path) refuses and adds nothing."""
    workspace = tmp_path / "ws"
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([[_user("I live in Lyon.")]]), "utf-8")
    env = clean_env(tmp_path, workspace)

    def reverie(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "reverie", "-w", str(workspace), *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            cwd=workspace if workspace.exists() else tmp_path,
        )

    assert reverie("ingest", str(chat)).returncode == 0
    (tmp_path / "link").symlink_to(workspace, target_is_directory=True)
    before = reverie("sessions", "--json").stdout
    for source in (".", "./.reverie/..", str(tmp_path / "link"), "memory/history.jsonl"):
        refused = reverie("ingest", source, ".reverie/sessions.sqlite3")
        assert refused.returncode == 1, source
        assert "is the workspace being ingested into" in refused.stderr
    assert reverie("sessions", "--json").stdout == before
    kept = workspace / "exports"
    kept.mkdir()
    (kept / "later.json").write_text(json.dumps([[_user("I moved to Porto.")]]), "utf-8")
    assert reverie("ingest", str(kept / "later.json")).returncode == 0
