"""The session store keeps its last replays by size, and a load is right whatever it kept."""

from __future__ import annotations

from pathlib import Path

from reverie.core.clock import Clock
from reverie.core.messages import Message
from reverie.storage.folder.replays import Replay, Replays
from reverie.storage.folder.sessions_sqlite import SqliteSessionStore


def _replay(size: int, generation: str = "g") -> Replay:
    return Replay(generation, (Message(role="user", content="x"),) * size, size)


def test_the_least_recently_used_go_first_once_the_bound_is_passed() -> None:
    replays = Replays(chars=10)
    replays.put("a", _replay(4))
    replays.put("b", _replay(4))
    assert replays.get("a") is not None  # a read does not refresh; a put does
    replays.put("a", _replay(4))
    replays.put("c", _replay(4))
    assert replays.get("b") is None
    assert replays.get("a") is not None
    assert replays.get("c") is not None
    assert (replays.size, len(replays)) == (8, 2)


def test_the_session_just_read_is_kept_even_when_it_alone_passes_the_bound() -> None:
    replays = Replays(chars=10)
    replays.put("small", _replay(2))
    replays.put("huge", _replay(50))
    assert replays.get("huge") is not None
    assert replays.get("small") is None
    assert replays.size == 50


def test_dropping_and_replacing_keep_the_size_true() -> None:
    replays = Replays(chars=100)
    replays.put("a", _replay(30))
    replays.put("a", _replay(10, "h"))
    assert replays.size == 10
    replays.drop("a")
    replays.drop("never kept")
    assert (replays.size, len(replays)) == (0, 0)


def test_loads_past_the_bound_read_every_session_whole_and_in_order(
    tmp_path: Path, clock: Clock
) -> None:
    replays = Replays(chars=400)  # a small bound, so loads evict each other
    store = SqliteSessionStore(
        tmp_path / "sessions", state_dir=tmp_path / ".reverie", clock=clock, replays=replays
    )
    texts = {f"s{n}": [f"message {i} of session {n}" for i in range(6)] for n in range(5)}
    for key, lines in texts.items():
        store.append_many(key, [Message(role="user", content=line) for line in lines[:3]])
    for _round in range(2):
        for key, lines in texts.items():
            assert [m.text for m in store.load(key).messages] == lines[:3]
    for key, lines in texts.items():  # grown sessions: a load reads past what it kept, or all
        store.append_many(key, [Message(role="user", content=line) for line in lines[3:]])
        assert [m.text for m in store.load(key).messages] == lines
    assert replays.size <= 400 or len(replays) == 1
    store.close()
