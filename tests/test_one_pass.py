"""One pass per call: a ``record`` or a ``prompt`` loads its session once and assembles once.

Counted with ``sys.setprofile`` (every Python call of this thread is seen, so a load made deep
inside the compactor counts as well as one in the facade), on a folder and on a PostgreSQL
workspace. The compactor measures the prompt the assembler built; it does not build its own.

A whole-session load made by the search index would be counted apart, as ``index_reads``:
there is none on either backend. The folder's index catches up by reading only a changed
session's new messages (``storage/folder/index/catch_up.py``: not a session load), and a
database indexes its rows where they are written.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable
from types import CodeType, FrameType

import pytest

from reverie import MemoryEngine
from reverie.memory.prompt import PromptAssembler
from reverie.storage.folder.index.catch_up import _catch_up_session
from reverie.storage.folder.sessions_sqlite import SqliteSessionStore


def _loads() -> frozenset[CodeType]:
    codes = {SqliteSessionStore.load.__code__}
    try:
        from reverie.storage.postgres.sessions import PgSessionStore  # the postgres extra
    except ImportError:  # pragma: no cover (the extra is installed in the dev environment)
        return frozenset(codes)
    return frozenset(codes | {PgSessionStore.load.__code__})


LOADS = _loads()
ASSEMBLE = PromptAssembler.assemble.__code__
INDEX_READ = _catch_up_session.__code__


def _counted(call: Callable[[], object]) -> Counter[str]:
    """How many session loads and prompt assemblies ``call`` made."""
    seen: Counter[str] = Counter()

    def profile(frame: FrameType, event: str, _arg: object) -> None:
        if event != "call":
            return
        if frame.f_code in LOADS:
            by_index = frame.f_back is not None and frame.f_back.f_code is INDEX_READ
            seen["index_reads" if by_index else "loads"] += 1
        elif frame.f_code is ASSEMBLE:
            seen["assemblies"] += 1

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return seen


@pytest.fixture(params=["folder", "postgres"])
def engine_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)  # the shared ``engine`` fixture, on both backends


def _exchange(engine: MemoryEngine, number: int) -> None:
    engine.record(
        "cli:a",
        [
            {"role": "user", "content": f"question {number}: when does the harbour open?"},
            {"role": "assistant", "content": "the harbour opens at nine"},
        ],
    )


def test_record_loads_its_session_once_and_assembles_once(engine: MemoryEngine) -> None:
    _exchange(engine, 1)
    seen = _counted(lambda: _exchange(engine, 2))
    assert seen == Counter(loads=1, assemblies=1)


def test_prompt_loads_its_session_once_and_assembles_once(
    engine: MemoryEngine, engine_kind: str
) -> None:
    _exchange(engine, 1)
    engine.prompt("cli:a", "and the harbour on sundays?")  # the index is built and caught up
    _exchange(engine, 2)
    seen = _counted(lambda: engine.prompt("cli:a", "and the harbour on mondays?"))
    assert seen == Counter(loads=1, assemblies=1), engine_kind


def test_a_record_and_a_prompt_are_two_loads_and_two_assemblies(
    engine: MemoryEngine, engine_kind: str
) -> None:
    def exchange(number: int) -> None:
        _exchange(engine, number)
        engine.prompt("cli:a", f"what about question {number}?")

    exchange(1)
    seen = _counted(lambda: exchange(2))
    assert seen == Counter(loads=2, assemblies=2), engine_kind
