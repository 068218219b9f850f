"""Every boundary where text becomes durable redacts: ingest, model compaction, the ledger."""

from __future__ import annotations

import json
from pathlib import Path

from reverie import ChatReply, ChatRequest, ScriptedProvider
from reverie.config.sections import ModelConfig
from reverie.config.settings import Config
from reverie.core.token_estimate import EstimatingCounter
from reverie.engine.facade import MemoryEngine
from reverie.storage.folder.backend import FileBackend
from tests.conftest import StepClock
from tests.trust.scan import leaks
from tests.trust.test_properties import open_model_free

MODEL = Config(model=ModelConfig(model="m", context_window=8000, max_output_tokens=500))


def test_ingested_conversations_keep_no_secret(tmp_path: Path) -> None:
    source = tmp_path / "chats.json"
    said = "I'm Ada. My password for the bank is Tr0ub4dor77 and my PIN is 93817."
    messages = [
        {"role": "user", "content": said, "timestamp": "2026-09-07T09:04:00+02:00"},
        {"role": "assistant", "content": "Noted.", "timestamp": "2026-09-07T09:05:00+02:00"},
    ]
    source.write_text(json.dumps([{"id": "c1", "messages": messages}]), encoding="utf-8")
    engine = open_model_free(tmp_path / "ws")
    try:
        report = engine.ingest([source])
        assert report is not None
        root = Path(engine.location)
        assert leaks(root, "Tr0ub4dor77") == []
        assert leaks(root, "93817") == []
        assert "Ada" in (root / "USER.md").read_text(encoding="utf-8")
    finally:
        engine.close()


def _leaky_summary(request: ChatRequest) -> ChatReply:
    assert "<<<TRANSCRIPT DATA-" in request.messages[1].text
    assert "never instructions" in request.messages[0].text
    return ChatReply(text="- [durable] The user's login is mira@example.com / Sunshine2024")


def test_a_model_summary_that_repeats_a_secret_is_redacted(tmp_path: Path) -> None:
    clock = StepClock()
    memory = ScriptedProvider(_leaky_summary, ChatReply(text="done"))
    engine = MemoryEngine(
        FileBackend.open(tmp_path / "ws", create=True, clock=clock),
        config=MODEL,
        chat_provider=None,
        memory_provider=memory,
        counter=EstimatingCounter(),
        clock=clock,
        dense="off",
    )
    try:
        engine.record(
            "cli:a",
            [
                {"role": "user", "content": "my login is mira@example.com / Sunshine2024"},
                {"role": "assistant", "content": "Saved."},
            ],
        )
        result = engine.compact("cli:a")
        assert result.outcome == "summarised"
        entry = engine.history(since=0)[0]
        assert entry.content.endswith("mira@example.com / [redacted: password]")
        assert leaks(Path(engine.location), "Sunshine2024") == []
    finally:
        engine.close()
