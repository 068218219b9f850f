"""Generations of one framework session: how a "clear" works over append-only sessions.

A framework session ``name`` lives in reverie session ``{prefix}{name}`` (generation 0), then
``{prefix}{name}~1``, ``~2``... Clearing (or rewriting, as ``pop_item`` does) starts the next
generation; the earlier ones stay in memory, as every recorded message does. The current
generation is the highest one the engine lists, so it survives a restart.

Invariant: ``~`` followed by digits at the end of a key is a generation mark; a name may hold
``~`` elsewhere.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reverie.engine.facade import MemoryEngine


def current_key(memory: MemoryEngine, base: str) -> str:
    """The reverie session key of the newest generation of ``base`` (``base`` when none)."""
    newest = 0
    for info in memory.sessions():
        number = _generation(info.key, base)
        if number is not None:
            newest = max(newest, number)
    return key_of(base, newest)


def next_key(memory: MemoryEngine, base: str) -> str:
    """The key of the generation after the current one of ``base``."""
    return key_of(base, (_generation(current_key(memory, base), base) or 0) + 1)


def key_of(base: str, number: int) -> str:
    """The key of generation ``number`` of ``base``."""
    return base if number == 0 else f"{base}~{number}"


def _generation(key: str, base: str) -> int | None:
    if key == base:
        return 0
    suffix = key.removeprefix(f"{base}~")
    if suffix == key or not suffix.isdigit():
        return None
    return int(suffix)
