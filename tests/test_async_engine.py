"""``AsyncMemoryEngine`` has an async twin of every public ``MemoryEngine`` operation."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path

from reverie import AsyncMemoryEngine, MemoryEngine

PARTS = {"agent", "dreamer", "idle_scanner"}
"""Methods that hand out a part rather than perform an operation: reached through ``engine``."""
BEFORE_AN_ENGINE = {"doctor_links"}
"""Class-level calls made before (or instead of) opening an engine: no engine to wrap yet."""


def _operations() -> dict[str, inspect.Signature]:
    found: dict[str, inspect.Signature] = {}
    for name, member in inspect.getmembers(MemoryEngine):
        if name.startswith("_") or name in PARTS | BEFORE_AN_ENGINE or isinstance(member, property):
            continue
        if callable(member):
            found[name] = inspect.signature(getattr(MemoryEngine, name))
    return found


def _shape(signature: inspect.Signature) -> list[tuple[str, object, object]]:
    return [
        (p.name, p.kind, p.default)
        for p in signature.parameters.values()
        if p.name not in ("self", "cls")
    ]


def test_every_public_engine_operation_has_an_async_twin_with_the_same_arguments() -> None:
    operations = _operations()
    assert {"record", "prompt", "dream", "search", "history", "costs"} <= set(operations)
    missing = sorted(name for name in operations if not hasattr(AsyncMemoryEngine, name))
    assert missing == [], f"add async twins to AsyncMemoryEngine: {missing}"
    for name, signature in operations.items():
        twin = getattr(AsyncMemoryEngine, name)
        assert inspect.iscoroutinefunction(twin), f"AsyncMemoryEngine.{name} must be async"
        if name != "open":  # open passes its options through as keywords
            assert _shape(inspect.signature(twin)) == _shape(signature), name


def test_the_twins_run_the_engine_in_a_worker_thread(tmp_path: Path) -> None:
    async def run() -> None:
        async with await AsyncMemoryEngine.open(tmp_path / "ws", environ={}, dense="off") as memory:
            await memory.record("cli:a", [{"role": "user", "content": "I live in Porto."}])
            await memory.record("cli:a", [{"role": "assistant", "content": "Noted."}])
            assert (await memory.compact("cli:a")).outcome == "summarised"
            [entry] = await memory.history()
            assert "Porto" in entry.content
            assert [s.key for s in await memory.sessions()] == ["cli:a"]
            assert await memory.has_session("cli:a")
            assert not await memory.has_session("cli:b")
            assert (await memory.session("cli:a")).compacted_upto == 2
            assert any(h.kind == "history" for h in await memory.search("Porto"))
            assert (await memory.dream()).outcome == "completed"
            assert "Porto" in await memory.read_memory("USER")
            assert "Porto" in await memory.read_file("USER.md")
            assert (await memory.log(1))[0].sha
            assert (await memory.costs()).unreadable == 0
            assert (await memory.doctor()).ok
            assert (await memory.status()).mode == "model-free"

    asyncio.run(run())
