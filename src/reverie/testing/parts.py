"""An engine's parts, for tests and benchmarks that tune or drive one directly.

The engine's public face is its operations (``MemoryEngine``); the parts it builds on first
use (``engine.parts.Parts``) are not on it. A test that changes recall's options or sources,
or drives the built-in agent step by step, takes them here. The product never imports this
module (``tests/test_architecture.py`` checks it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reverie.engine.facade import MemoryEngine
    from reverie.memory.agent import ChatAgent
    from reverie.memory.recall import Recaller


def recaller_of(engine: MemoryEngine) -> Recaller:
    """The engine's recall (the same object its prompts use: a change to it is seen there)."""
    return engine._parts.recaller  # noqa: SLF001 -- test support reads the engine's parts


def agent_of(engine: MemoryEngine) -> ChatAgent:
    """The engine's built-in agent.

    Raises:
        ModelNotConfiguredError: the engine has no chat model.
    """
    return engine._agent()  # noqa: SLF001 -- test support reads the engine's parts
