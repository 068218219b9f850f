"""The two engine reads the surfaces use: one durable file, one whole session."""

from __future__ import annotations

from pathlib import Path

from reverie import MemoryEngine
from reverie.testing.folders import workspace_of


def test_read_memory_and_session(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path / "ws", environ={}, dense="off") as engine:
        workspace_of(engine).files.write("MEMORY", "# Memory\n\n- the harbour opens at 6\n")
        assert engine.read_memory("MEMORY").endswith("opens at 6\n")
        assert engine.session("nobody").messages == ()
        engine.record(
            "s", [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]
        )
        engine.compact("s")
        session = engine.session("s")
        assert [m.text for m in session.messages] == ["a", "b"]  # compacted ones stay
        assert session.compacted_upto == 2
