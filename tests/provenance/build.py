"""Building workspaces with real conversations, compactions and dreams for provenance tests."""

from __future__ import annotations

import os
import zlib
from pathlib import Path

from reverie import MemoryEngine, ScriptedProvider
from reverie.config.sections import ModelConfig
from reverie.config.settings import Config
from tests.conftest import StepClock

NO_MODEL = Config(model=ModelConfig(context_window=4000, max_output_tokens=500))

PORTO = [
    {"role": "user", "content": "Hi there!"},
    {"role": "assistant", "content": "Hello! How can I help?"},
    {"role": "user", "content": "I live in Porto and I work as a marine biologist."},
    {"role": "assistant", "content": "Noted, a marine biologist in Porto."},
    {"role": "user", "content": "Always answer me in Portuguese please."},
    {"role": "assistant", "content": "Claro."},
]
SISTER = [
    {"role": "user", "content": "My sister Ana plays the cello in Lisbon."},
    {"role": "assistant", "content": "Lovely."},
]
MOVE = [
    {"role": "user", "content": "Actually I live in Braga now, not in Porto any more."},
    {"role": "assistant", "content": "Got it."},
]


def model_free(tmp_path: Path, clock: StepClock) -> MemoryEngine:
    """An engine with no model: compaction and dream run model-free."""
    return MemoryEngine.open(tmp_path / "ws", NO_MODEL, clock=clock, environ={}, dense="off")


def scripted(tmp_path: Path, clock: StepClock, memory: ScriptedProvider) -> MemoryEngine:
    """An engine whose compaction and dream use ``memory``."""
    config = Config(
        model=ModelConfig(model="chat", context_window=4000, max_output_tokens=500),
    )
    return MemoryEngine.open(
        tmp_path / "ws", config, clock=clock, environ={}, memory_provider=memory, dense="off"
    )


def converse(engine: MemoryEngine, key: str, messages: list[dict[str, str]]) -> None:
    """Record ``messages`` in session ``key`` and compact them into history."""
    engine.record(key, messages)
    engine.compact(key)


def bullets(engine: MemoryEngine) -> list[str]:
    """The bullets of the three durable files (wherever curation routed them)."""
    root = Path(engine.location)
    found = []
    for name in ("SOUL.md", "USER.md", "memory/MEMORY.md"):
        text = (root / name).read_text(encoding="utf-8")
        found += [line for line in text.splitlines() if line.startswith("- ")]
    return found


def traces(root: Path, text: str) -> list[str]:
    """Every place under ``root`` whose bytes hold ``text`` (any case): raw, zlib and packed."""
    forms = {text.encode(), text.lower().encode(), text.upper().encode()}
    found = []
    for folder, _dirs, names in os.walk(root):
        for name in names:
            path = Path(folder) / name
            data = path.read_bytes()
            for chunk in (data, *_inflated(data)):
                if any(form in chunk or form in chunk.lower() for form in forms):
                    found.append(str(path.relative_to(root)))
                    break
    return found


def _inflated(data: bytes) -> list[bytes]:
    """Every zlib stream that starts anywhere in ``data`` (loose objects and pack entries)."""
    streams = []
    for start in range(len(data) - 1):
        if data[start] != 0x78:
            continue
        inflater = zlib.decompressobj()
        try:
            streams.append(inflater.decompress(data[start:], 1 << 20))
        except zlib.error:
            continue
    return streams
