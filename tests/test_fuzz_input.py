"""Fuzz the edges (issue #14): any text, any JSON shape, through the SDK and the importers.

Every call either succeeds, storing only valid UTF-8, or raises a ``ReverieError``; afterwards
``record``, ``prompt``, ``search`` and ``doctor`` still work on every session. Text mixes
lone surrogates, NUL and other control characters, bidirectional marks and ordinary text;
JSON shapes are arbitrary (nested lists and objects, numbers, nulls). Example counts are
kept small: the point is breadth of input, and one shared workspace accumulates it all.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reverie.config.sections import ModelConfig
from reverie.config.settings import Config
from reverie.core.inbound import MAX_MESSAGE_CHARS, has_surrogate_escape
from reverie.engine.facade import MemoryEngine
from reverie.errors import InputError, ReverieError
from tests.conftest import StepClock
from tests.store.stored_sessions import stored_session_bytes

SMALL = Config(model=ModelConfig(context_window=2_000, max_output_tokens=300))
ODD = ("\ud83d", "\ude00", "\udc00\ud800", "\x00", "\x07", "\x1b[2J", "\u202e", "\u200f", "\ufeff")

odd_text = st.lists(
    st.one_of(st.text(max_size=12), st.sampled_from(ODD), st.just("I live in Oslo. ")),
    max_size=6,
).map("".join)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | odd_text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(odd_text, inner, max_size=3),
    max_leaves=12,
)
messages = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "tool", "system", "robot"])},
    optional={
        "content": st.one_of(odd_text, json_values),
        "name": odd_text,
        "tool_call_id": odd_text,
        "timestamp": st.sampled_from(
            ["0001-01-01T00:00:00+00:00", "9999-12-31T23:59:00-05:00", "2024-01-01T00:00:00", "x"]
        ),
        "extra": json_values,
    },
)
keys = st.one_of(st.sampled_from(["chat", "tg:alice", "\u4e2d\u6587"]), odd_text)


@pytest.fixture(scope="module")
def engine() -> Iterator[MemoryEngine]:
    with tempfile.TemporaryDirectory(prefix="reverie-fuzz-") as folder:
        opened = MemoryEngine.open(
            Path(folder) / "ws", SMALL, clock=StepClock(), environ={}, dense="off"
        )
        yield opened
        opened.close()


def _stored_text_is_valid(root: Path) -> None:
    for where, data in (
        ("sessions", stored_session_bytes(root)),
        ("history", (root / "memory" / "history.jsonl").read_bytes()),
    ):
        data.decode("utf-8")  # strict
        assert not has_surrogate_escape(data), where
    for name in ("SOUL.md", "USER.md", "memory/MEMORY.md"):
        (root / name).read_bytes().decode("utf-8")


def _still_works(engine: MemoryEngine) -> None:
    for info in engine.sessions():
        engine.prompt(info.key, "what do you remember?")
    engine.record("after", [{"role": "user", "content": "still here"}])
    engine.search("Oslo")
    engine.search("\ud83d \x00 \u202e")
    assert not [f for f in engine.doctor().findings if f.severity == "problem"]


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(key=keys, batch=st.lists(messages, min_size=1, max_size=3), query=odd_text)
def test_sdk_calls_store_valid_text_or_raise_a_reverie_error(
    engine: MemoryEngine, key: str, batch: list[dict[str, Any]], query: str
) -> None:
    for call in (
        lambda: engine.record(key, batch),
        lambda: engine.prompt(key, query),
        lambda: engine.search(query, session_key=key),
    ):
        with contextlib.suppress(ReverieError):
            call()
    _stored_text_is_valid(Path(engine.location))


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(document=json_values | st.lists(st.lists(messages, max_size=3), max_size=3))
def test_importers_take_any_json_shape(engine: MemoryEngine, document: object) -> None:
    with tempfile.TemporaryDirectory(prefix="reverie-fuzz-src-") as folder:
        source = Path(folder) / "chat.json"
        source.write_text(json.dumps(document), encoding="utf-8")  # surrogates as escapes
        lines = Path(folder) / "chat.jsonl"
        items = document if isinstance(document, list) else [document]
        lines.write_text("\n".join(json.dumps(item) for item in items), encoding="utf-8")
        for path in (source, lines):
            with contextlib.suppress(ReverieError):
                engine.ingest([path])
    _stored_text_is_valid(Path(engine.location))


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    lines=st.lists(messages, max_size=4),
    history=st.lists(odd_text, max_size=3),
    user_file=odd_text,
)
def test_a_nanobot_workspace_with_odd_text_imports_or_says_why(
    engine: MemoryEngine, lines: list[dict[str, Any]], history: list[str], user_file: str
) -> None:
    with tempfile.TemporaryDirectory(prefix="reverie-fuzz-nb-") as folder:
        root = Path(folder)
        (root / "sessions").mkdir()
        (root / "memory").mkdir()
        session = [{"_type": "metadata", "key": "tg:fuzz"}, *lines]
        (root / "sessions" / "tg_fuzz.jsonl").write_text(
            "\n".join(json.dumps(item) for item in session), encoding="utf-8"
        )
        (root / "memory" / "history.jsonl").write_text(
            "".join(
                json.dumps({"cursor": n, "timestamp": "2026-01-01 10:00", "content": text}) + "\n"
                for n, text in enumerate(history, start=1)
            ),
            encoding="utf-8",
        )
        # Surrogates cannot be UTF-8: they land as invalid bytes, as a bad editor would write.
        (root / "USER.md").write_bytes(user_file.encode("utf-8", "surrogatepass"))
        with contextlib.suppress(ReverieError):
            engine.ingest([root])
    _stored_text_is_valid(Path(engine.location))


def test_a_10_mb_string_is_refused_by_the_sdk_and_reported_by_an_importer(
    engine: MemoryEngine, tmp_path: Path
) -> None:
    huge = "harbour " * (10 * 1024 * 1024 // 8)
    with pytest.raises(InputError, match=f"the limit is {MAX_MESSAGE_CHARS:,}"):
        engine.record("huge", [{"role": "user", "content": huge}])
    assert not engine.has_session("huge")
    engine.prompt("huge", huge)  # not stored: compaction makes it fit or says why
    source = tmp_path / "huge.json"
    source.write_text(
        json.dumps([[{"role": "user", "content": huge}, {"role": "user", "content": "ok"}]])
    )
    report = engine.ingest([source])
    assert report.messages_added == 1
    assert "the limit is" in report.problems[0].reason


def test_every_session_still_works_after_the_fuzz(engine: MemoryEngine) -> None:
    _stored_text_is_valid(Path(engine.location))
    _still_works(engine)
