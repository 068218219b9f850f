"""Restore to a commit older than a trim says what cannot be re-dreamt, and needs force."""

from __future__ import annotations

from pathlib import Path

import pytest

from reverie.config.sections import DreamConfig
from reverie.config.settings import Config
from reverie.engine.facade import MemoryEngine
from reverie.errors import RestoreWouldLoseError
from reverie.testing.folders import workspace_of
from tests.conftest import StepClock

CITIES = ("Oslo", "Lyon", "Porto", "Ghent", "Turin", "Bergen")


def test_restore_before_a_trim_is_refused_unless_forced(tmp_path: Path) -> None:
    config = Config(dream=DreamConfig(batch_entries=2, keep_history=3))
    engine = MemoryEngine.open(tmp_path / "ws", config, clock=StepClock(), environ={}, dense="off")
    for number, city in enumerate(CITIES):
        engine.record(f"s{number}", [{"role": "user", "content": f"I live near {city}."}])
        engine.compact(f"s{number}")
    while engine.dream().outcome != "no_pending":
        pass
    first_kept = engine.history()[0].cursor
    assert first_kept == 4  # the dreams trimmed the oldest entries
    oldest = engine.log(50)[-1].sha  # the workspace's first commit (dream cursor 0)
    with pytest.raises(RestoreWouldLoseError) as refused:
        engine.restore(oldest)
    assert (refused.value.first, refused.value.last) == (1, first_kept - 1)
    assert "--force" in str(refused.value)
    assert "Oslo" in engine.read_memory("USER")  # nothing changed
    assert engine.restore("HEAD~1").subject.startswith("restore:")  # after the trim: fine
    forced = engine.restore(oldest, force=True)
    assert forced.subject.startswith("restore:")
    assert workspace_of(engine).dream_cursor.read() == 0
    engine.close()
