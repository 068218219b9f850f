"""The viewer's default provenance hook explains a durable line with ``MemoryEngine.why``."""

from __future__ import annotations

from pathlib import Path

from reverie import MemoryEngine
from reverie.viewer.provenance import engine_provenance


def test_a_dreamt_line_is_explained_by_its_entry_and_message(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path / "ws", environ={}, dense="off") as engine:
        engine.record(
            "tg:ada",
            [
                {"role": "user", "content": "My dog is called Quasimodo and he loves the beach."},
                {"role": "assistant", "content": "Lovely."},
            ],
        )
        engine.compact("tg:ada")
        engine.dream()
        line = next(text for text in engine.read_memory("USER").splitlines() if "Quasimodo" in text)
        said = engine_provenance(engine)("USER.md", line)
        assert said[0].startswith("Written by dream")
        assert any(text.startswith("History entry #") for text in said)
        assert any("tg:ada message 0 (user" in text and "Quasimodo" in text for text in said)
        assert engine_provenance(engine)("memory/MEMORY.md", line) == []


def test_a_hand_written_line_says_so(tmp_path: Path) -> None:
    with MemoryEngine.open(tmp_path / "ws", environ={}, dense="off") as engine:
        engine.edit_file("USER.md", "# User\n\n- Plays the oboe on Tuesdays\n", author="Ada")
        said = engine_provenance(engine)("USER.md", "- Plays the oboe on Tuesdays")
        assert said == ["Edited by hand: no dream wrote this line."]
        assert engine_provenance(engine)("USER.md", "-") == []
