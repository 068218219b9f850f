"""The chat REPL's line handling and its background reports, in-process on a real workspace."""

from __future__ import annotations

import io
from datetime import timedelta
from pathlib import Path

import pytest

from reverie import LockTimeoutError, Message, ModelConnectionError, ScriptedProvider
from reverie.cli.record_views import compaction_line
from reverie.cli.repl import Repl
from reverie.config.sections import CompactionConfig, DreamConfig, ModelConfig
from reverie.config.settings import Config
from reverie.engine.facade import MemoryEngine
from reverie.engine.maintenance import MaintenancePass, maintain
from tests.conftest import StepClock

CONFIG = Config(
    model=ModelConfig(model="chat", context_window=8000, max_output_tokens=500),
    compaction=CompactionConfig(idle_minutes=15),
    dream=DreamConfig(mode="model-free", pending_trigger=1, interval_minutes=0),
)


def _engine(tmp_path: Path, clock: StepClock, chat: ScriptedProvider) -> MemoryEngine:
    return MemoryEngine.open(
        tmp_path / "ws", CONFIG, provider=chat, clock=clock, environ={}, dense="off"
    )


def _talk(engine: MemoryEngine, key: str) -> None:
    engine.record(
        key,
        [
            Message(role="user", content="My name is Ada and I live in Lima."),
            Message(role="assistant", content="Hello Ada."),
        ],
    )


def test_lines_and_slash_commands(
    tmp_path: Path, clock: StepClock, capsys: pytest.CaptureFixture[str]
) -> None:
    chat = ScriptedProvider()
    chat.reply("Hello Ada, Lima noted.")
    chat.fail(ModelConnectionError("cannot reach http://127.0.0.1:9/v1"))
    repl = Repl(_engine(tmp_path, clock, chat), session="tg:ada")
    assert repl.handle("My name is Ada and I live in Lima.")
    assert "Hello Ada, Lima noted." in capsys.readouterr().out
    assert repl.handle("still there?")
    assert "cannot reach" in capsys.readouterr().err
    for command, shown in (
        ("/compact", "tg:ada: summarised"),
        ("/dream", "dream completed (model-free"),
        ("/status", "model-free memory"),
        ("/help", "/quit"),
    ):
        assert repl.handle(command)
        assert shown in capsys.readouterr().out, command
    assert repl.handle("/bogus")
    assert "unknown command /bogus" in capsys.readouterr().err
    assert repl.handle("/new tg:bo")
    assert repl.busy_sessions() == ["tg:bo"]
    assert repl.handle("/NEW")
    assert repl.session.startswith("cli:")
    assert not repl.handle("/quit")
    assert not repl.handle("/exit")


def test_run_reads_until_quit_or_end_of_input(
    tmp_path: Path,
    clock: StepClock,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    chat = ScriptedProvider()
    chat.reply("first answer")
    repl = Repl(_engine(tmp_path, clock, chat), session="tg:run")
    monkeypatch.setattr("sys.stdin", io.StringIO("\nhello\n/quit\nnever read\n"))
    repl.run()
    out = capsys.readouterr().out
    assert "session tg:run" in out
    assert "first answer" in out
    monkeypatch.setattr("sys.stdin", io.StringIO("/help\n"))
    repl.run()  # ends at end of input
    assert "/dream" in capsys.readouterr().out


def test_the_repl_shows_what_a_background_pass_did_on_stderr(
    tmp_path: Path, clock: StepClock, capsys: pytest.CaptureFixture[str]
) -> None:
    engine = _engine(tmp_path, clock, ScriptedProvider())
    _talk(engine, "tg:idle")
    _talk(engine, "tg:mine")
    clock.advance(timedelta(minutes=30))
    repl = Repl(engine, session="tg:mine")
    repl.background_report(maintain(engine, busy=repl.busy_sessions()))
    shown = capsys.readouterr().err
    assert "[background] idle tg:idle: summarised" in shown
    assert "[background] dream completed (model-free" in shown
    assert "tg:mine" not in shown
    repl.background_report(maintain(engine, busy=repl.busy_sessions()))
    assert capsys.readouterr().err == ""  # a pass that did nothing says nothing
    repl.background_report(MaintenancePass(error=LockTimeoutError(tmp_path / "x.lock", 1.0)))
    assert "[background] background: could not lock" in capsys.readouterr().err


def _carried(engine: MemoryEngine, key: str) -> int:
    """What the session's next prompt carries, measured the way compaction measures it."""
    session = engine.session(key)
    return engine._parts.assembler.assemble(session, None, minimal=True).carried


def test_compact_reports_the_tokens_the_prompt_carries_before_and_after(
    tmp_path: Path, clock: StepClock, capsys: pytest.CaptureFixture[str]
) -> None:
    engine = _engine(tmp_path, clock, ScriptedProvider())
    for number in range(30):
        engine.record(
            "tg:long",
            [
                Message(role="user", content=f"Day {number}: we walked the long coast road."),
                Message(role="assistant", content="A long walk, well done. " * 12),
            ],
        )
    before = _carried(engine, "tg:long")
    repl = Repl(engine, session="tg:long")
    assert repl.handle("/compact")
    shown = capsys.readouterr().out
    after = _carried(engine, "tg:long")
    assert f"{before} -> {after} tokens" in shown
    assert after < before
    _talk(engine, "tg:short")
    before = _carried(engine, "tg:short")
    result = engine.compact("tg:short")
    assert (result.tokens_before, result.tokens_after) == (before, _carried(engine, "tg:short"))
    if result.tokens_after > result.tokens_before:  # said, not left looking like a mistake
        assert "longer than the short exchange" in str(compaction_line("tg:short", result))
