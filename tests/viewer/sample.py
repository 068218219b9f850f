"""A small, realistic workspace for the viewer's tests and screenshots.

Two conversations (one compacted), a model-free dream, a person's edit, a few days of ledger
records, and one memory line holding markup (``<script>``) that must render as text.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from reverie import MemoryEngine, Message
from reverie.config.sections import ModelConfig
from reverie.config.settings import Config
from reverie.core.ledger import LedgerRecord
from reverie.testing.folders import workspace_of

HOSTILE_LINE = '- Zoe wrote <script>document.title="pwned"</script> in a note'
START = datetime(2026, 11, 24, 9, 0, tzinfo=UTC)
NO_MODEL = Config(model=ModelConfig(context_window=4000, max_output_tokens=500))


class SampleClock:
    """Moves forward ten minutes per call, from ``start``."""

    def __init__(self, start: datetime = START) -> None:
        self.now = start

    def __call__(self) -> datetime:
        self.now += timedelta(minutes=10)
        return self.now


def reopen(root: Path) -> MemoryEngine:
    """Open a copy of the sample workspace, its clock a day after the sample was made."""
    return MemoryEngine.open(
        root,
        NO_MODEL,
        clock=SampleClock(START + timedelta(days=1)),
        environ={},
        create=False,
        dense="off",
    )


def build(root: Path) -> MemoryEngine:
    """Lay out the sample workspace under ``root`` and return its open engine."""
    engine = MemoryEngine.open(root, NO_MODEL, clock=SampleClock(), environ={}, dense="off")
    engine.record("telegram:zoe", _conversation())
    engine.compact("telegram:zoe")
    engine.record("telegram:zoe", [Message(role="user", content="Book the usual table please.")])
    engine.record(
        "cli:work",
        [
            Message(role="user", content="We decided to ship the viewer behind the serve token."),
            Message(role="assistant", content="Noted: the viewer ships behind the serve token."),
        ],
    )
    engine.compact("cli:work")
    engine.dream()
    memory = engine.read_file("memory/MEMORY.md")
    engine.edit_file(
        "memory/MEMORY.md",
        memory + "- Project Lark ships on Friday\n",
        author="Ada <ada@example.org>",
    )
    user = engine.read_file("USER.md")
    engine.edit_file("USER.md", user + HOSTILE_LINE + "\n", author="Ada <ada@example.org>")
    for day in range(5):
        workspace_of(engine).ledger.append(
            LedgerRecord(
                time=START + timedelta(days=day),
                job="dream" if day % 2 else "compaction",
                outcome="completed",
                model="sample",
                tokens_in=800 + 400 * day,
                tokens_out=150 * day,
            )
        )
    return engine


def _conversation() -> list[Message]:
    return [
        Message(role="user", content="Hi, I'm Zoe. I live in Riga and I prefer tea to coffee."),
        Message(role="assistant", content="Nice to meet you, Zoe. Tea it is."),
        Message(role="user", content="My project Lark is a bird-song app; the deadline is Friday."),
        Message(role="assistant", content="Got it: Lark, bird-song app, due Friday."),
    ]
