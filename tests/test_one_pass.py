"""One pass per call: a ``record`` or a ``prompt`` loads its session once and assembles once.

Counted with ``sys.setprofile`` (every Python call of this thread is seen, so a load made deep
inside the compactor counts as well as one in the facade), on a folder and on a PostgreSQL
workspace. The compactor measures the prompt the assembler built; it does not build its own.
A prompt given the session its caller just read (``loaded``) reads none: the proxy's exchange
is one read to reconcile and build the prompt, one to record the answer. Over budget, the
compactor reads the session under its lock (once, then once after each round) and the prompt
(of ``prompt`` and of the built-in agent's ``turn``) is built again on its last read, not on
one more.

A whole-session load made by the search index would be counted apart, as ``index_reads``:
there is none on either backend. The folder's index catches up by reading only a changed
session's new messages (``storage/folder/index/catch_up.py``: not a session load), and a
database indexes its rows where they are written.
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from types import CodeType, FrameType

import pytest

from reverie import ChatReply, ChatRequest, InputError, MemoryEngine, ScriptedProvider
from reverie.config.sections import ModelConfig
from reverie.config.settings import Config
from reverie.core.messages import JSONValue, Message
from reverie.memory.prompt import PromptAssembler
from reverie.serve.chat_request import ChatCall, prepare, record_answer
from reverie.storage.folder.index.catch_up import _catch_up_session
from reverie.storage.folder.sessions_sqlite import SqliteSessionStore
from tests.conftest import StepClock


def _loads() -> frozenset[CodeType]:
    codes = {SqliteSessionStore.load.__code__}
    try:
        from reverie.storage.postgres.sessions import PgSessionStore  # the postgres extra
    except ImportError:  # pragma: no cover (the extra is installed in the dev environment)
        return frozenset(codes)
    return frozenset(codes | {PgSessionStore.load.__code__})


LOADS = _loads()
FERRY = "I work on the ferry that leaves at ten."
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


@pytest.fixture
def engine_config() -> Config:
    """A small window, so a long new message puts a prompt over budget (model-free)."""
    return Config(model=ModelConfig(context_window=4000, max_output_tokens=500))


@pytest.fixture
def other_writer(
    request: pytest.FixtureRequest,
    engine: MemoryEngine,
    engine_kind: str,
    engine_config: Config,
    tmp_path: Path,
    clock: StepClock,
) -> Iterator[MemoryEngine]:
    """A second engine on the ``engine`` fixture's workspace: another writer of its sessions."""
    if engine_kind == "folder":
        where, store = str(tmp_path / "ws"), None
    else:
        store = request.getfixturevalue("pg_url")
        where = _pg_workspace(engine)
    with MemoryEngine.open(
        where, engine_config, store=store, clock=clock, environ={}, dense="off"
    ) as opened:
        yield opened


def _summary(request: ChatRequest) -> ChatReply:
    return ChatReply(text=f"- [durable] summarised {len(request.messages[-1].text)} chars")


def _pg_workspace(engine: MemoryEngine) -> str:
    """The workspace name a database engine's ``location`` ends with (``workspace 'name'``)."""
    return str(ast.literal_eval(engine.location.rsplit(" workspace ", 1)[1]))


def _facts(engine: MemoryEngine) -> None:
    """Six exchanges holding facts, so model-free compaction has something to keep."""
    for number in range(6):
        engine.record(
            "cli:a",
            [
                {"role": "user", "content": f"I live in Porto and my boat {number} is blue."},
                {"role": "assistant", "content": f"Noted: you live in Porto, boat {number}."},
            ],
        )


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


def test_a_prompt_given_the_session_just_read_reads_none(
    engine: MemoryEngine, engine_kind: str
) -> None:
    _exchange(engine, 1)
    engine.prompt("cli:a", "and the harbour on sundays?")
    session = engine.session("cli:a")
    seen = _counted(lambda: engine.prompt("cli:a", "and on mondays?", loaded=session))
    assert seen == Counter(assemblies=1), engine_kind


def test_a_prompt_refuses_the_session_of_another_key(engine: MemoryEngine) -> None:
    _exchange(engine, 1)
    other = engine.session("cli:a")
    with pytest.raises(InputError, match="cli:b"):
        engine.prompt("cli:b", "and on mondays?", loaded=other)


def test_a_proxy_exchange_reads_its_session_twice_and_assembles_twice(
    engine: MemoryEngine, engine_kind: str
) -> None:
    def exchange(number: int) -> None:
        question: JSONValue = {"role": "user", "content": f"question {number}: harbour hours?"}
        body: JSONValue = {"model": "m", "messages": [question], "metadata": {"session": "api:a"}}
        call = ChatCall.parse(body, {})
        prepared = prepare(engine, call)
        answer = Message(role="assistant", content=f"answer {number}: at nine")
        record_answer(engine, call.session, prepared.final, answer)

    exchange(1)
    seen = _counted(lambda: exchange(2))
    assert seen == Counter(loads=2, assemblies=2), engine_kind  # reconcile+prompt, record


def test_an_over_budget_prompt_is_built_again_on_the_last_read_of_compaction(
    engine: MemoryEngine, engine_kind: str
) -> None:
    _facts(engine)
    long_question = "and the harbour? " + " ".join(f"tide{n} berth{n}" for n in range(500))
    results = []
    seen = _counted(lambda: results.append(engine.prompt("cli:a", long_question)))
    [result] = results
    rounds = result.compaction.rounds
    assert result.compaction.outcome == "summarised", engine_kind
    assert rounds >= 1
    # One read for the prompt, one under the lock, one after each round; assemblies: the
    # prompt, the measure under the lock, one after each round, the prompt built again.
    assert seen == Counter(loads=2 + rounds, assemblies=3 + rounds), engine_kind
    assert result.prompt.tokens <= result.budget


def test_a_record_between_the_read_and_the_prompt_is_not_lost(
    engine: MemoryEngine, other_writer: MemoryEngine, engine_kind: str
) -> None:
    _exchange(engine, 1)
    session = engine.session("cli:a")
    ferry = {"role": "user", "content": "the ferry leaves at ten"}
    other_writer.record("cli:a", [ferry])
    stale = engine.prompt("cli:a", "and the harbour?", loaded=session)
    assert "ferry" not in " ".join(m.text for m in stale.messages)  # the read it was given
    fresh = engine.prompt("cli:a", "and the harbour?")
    assert "the ferry leaves at ten" in [m.text for m in fresh.messages], engine_kind
    assert engine.session("cli:a").messages[-1].text == "the ferry leaves at ten"


def test_over_budget_compaction_reads_past_the_session_the_prompt_was_given(
    engine: MemoryEngine, other_writer: MemoryEngine, engine_kind: str
) -> None:
    _facts(engine)
    session = engine.session("cli:a")
    other_writer.record("cli:a", [{"role": "user", "content": FERRY}])
    long_question = "and the harbour? " + " ".join(f"tide{n} berth{n}" for n in range(500))
    result = engine.prompt("cli:a", long_question, loaded=session)
    assert result.compaction.outcome == "summarised", engine_kind
    # Compaction read the session afresh under its lock: the other writer's message is
    # either still pending (replayed) or in what it compacted, and the mark covers no more
    # than what was stored.
    after = engine.session("cli:a")
    assert after.messages[-1].text == FERRY
    carried = " ".join(m.text for m in result.messages)
    compacted = " ".join(entry.content for entry in result.compaction.entries)
    assert "ferry" in carried or "ferry" in compacted, engine_kind
    assert result.prompt.tokens <= result.budget


def test_an_over_budget_turn_sends_the_prompt_built_on_the_last_read_of_compaction(
    tmp_path: Path, clock: StepClock
) -> None:
    config = Config(model=ModelConfig(model="chat", context_window=4000, max_output_tokens=500))
    chat, memory = ScriptedProvider(), ScriptedProvider(*[_summary] * 20)
    chat.reply("The harbour opens at nine.")
    with MemoryEngine.open(
        tmp_path / "ws",
        config,
        clock=clock,
        environ={},
        provider=chat,
        memory_provider=memory,
        dense="off",
    ) as engine:
        _facts(engine)
        long_question = "and the harbour? " + " ".join(f"tide{n} berth{n}" for n in range(500))
        results = []
        seen = _counted(lambda: results.append(engine.turn("cli:a", long_question)))
        [result] = results
        [compaction] = [c for c in result.compactions if c.outcome != "not_needed"]
        assert compaction.outcome == "summarised"
        sent = chat.requests[0].messages
        assert "summarised" in sent[0].text  # the summary compaction just wrote opens it
        assert seen["loads"] == 2 + compaction.rounds, seen
        assert seen["assemblies"] == 3 + compaction.rounds, seen
