"""A session key past 1,024 characters (or blank, or not Unicode) is an ``InputError`` at the SDK.

Every engine call that takes a key, on a folder and on a PostgreSQL workspace: the same
refusal before anything is read or written, never a database error (a proxy or a server
would turn that into a 500), and nothing is stored.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from reverie import MemoryEngine
from reverie.core.messages import Message
from reverie.errors import InputError

LONG = "tg:" + "k" * 1_022
BAD_KEYS = [LONG, "k" * 100_000, "", "a\udc80b"]


@pytest.fixture(params=["folder", "postgres"])
def engine_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)  # the shared ``engine`` fixture, on both backends


def _calls(engine: MemoryEngine, key: str) -> dict[str, Callable[[], object]]:
    hello = [Message(role="user", content="hello")]
    return {
        "record": lambda: engine.record(key, hello),
        "prompt": lambda: engine.prompt(key, "hello"),
        "session": lambda: engine.session(key),
        "has_session": lambda: engine.has_session(key),
        "compact": lambda: engine.compact(key),
        "search": lambda: engine.search("hello", session_key=key),
        "recall": lambda: engine.recall("hello", session=key),
    }


@pytest.mark.parametrize("key", BAD_KEYS, ids=["1025", "100k", "blank", "surrogate"])
def test_every_call_refuses_a_bad_session_key_as_input(engine: MemoryEngine, key: str) -> None:
    for name, call in _calls(engine, key).items():
        with pytest.raises(InputError, match="session key"):
            call()
        assert engine.sessions() == [], name


def test_a_key_of_exactly_1024_characters_is_accepted(engine: MemoryEngine) -> None:
    key = "tg:" + "k" * 1_021
    engine.record(key, [Message(role="user", content="hello")])
    assert engine.session(key).messages[0].content == "hello"
    assert engine.search("hello", session_key=key)
