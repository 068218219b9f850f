"""Text valid at the edge (issue #14): surrogates, nesting, sizes, naive times, limits."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from reverie import Message
from reverie.config.sections import ModelConfig
from reverie.config.settings import Config
from reverie.core.clock import local_time, parse_wall_clock, wall_clock
from reverie.core.inbound import (
    MAX_JSON_DEPTH,
    MAX_MESSAGE_CHARS,
    admit,
    admit_all,
    check_limit,
    check_session_key,
    has_surrogate_escape,
    valid_json,
    valid_text,
)
from reverie.engine.facade import MemoryEngine
from reverie.errors import InputError
from tests.conftest import StepClock
from tests.store.stored_sessions import stored_session_bytes

NO_MODEL = Config(model=ModelConfig(context_window=8000, max_output_tokens=500))


def _engine(tmp_path: Path, clock: StepClock) -> MemoryEngine:
    return MemoryEngine.open(tmp_path / "ws", NO_MODEL, clock=clock, environ={}, dense="off")


def _nested(depth: int) -> object:
    value: object = "x"
    for _ in range(depth):
        value = [value]
    return value


def test_valid_text_replaces_lone_surrogates_and_joins_split_pairs() -> None:
    assert valid_text("plain \u4e2d\u6587 \u202e") == ("plain \u4e2d\u6587 \u202e", 0)
    assert valid_text("half \ud83d emoji") == ("half \ufffd emoji", 1)
    assert valid_text("\udc00\ud800") == ("\ufffd\ufffd", 2)
    assert valid_text("pair \ud83d\ude00 \ufffd") == ("pair \U0001f600 \ufffd", 0)
    assert valid_text("nul \x00 bell \x07") == ("nul \x00 bell \x07", 0)


def test_valid_json_cleans_keys_and_values_and_refuses_deep_nesting() -> None:
    cleaned, count = valid_json({"k\ud800": ["v\udfff", 1, None, True, 2.5]})
    assert cleaned == {"k\ufffd": ["v\ufffd", 1, None, True, 2.5]}
    assert count == 2
    valid_json(_nested(MAX_JSON_DEPTH - 1))  # type: ignore[arg-type]
    with pytest.raises(InputError, match=f"deeper than {MAX_JSON_DEPTH}"):
        valid_json(_nested(MAX_JSON_DEPTH + 5))  # type: ignore[arg-type]


def test_admit_refuses_naive_times_huge_messages_and_non_json_extras() -> None:
    naive = Message(role="user", content="hi", timestamp=datetime(2024, 1, 1))  # noqa: DTZ001
    with pytest.raises(InputError, match="has no timezone"):
        admit(naive)
    with pytest.raises(InputError, match="the limit is 1,000,000"):
        admit(Message(role="user", content="x" * (MAX_MESSAGE_CHARS + 1)))
    with pytest.raises(InputError, match="not JSON"):
        admit(Message(role="user", content="x", extra={"when": object()}))  # type: ignore[dict-item]
    with pytest.raises(InputError, match="message 1: 'content' must be"):
        admit_all([{"role": "user", "content": "ok"}, {"role": "user", "content": 5}])


def test_check_limit_and_session_key_refuse_with_a_clear_message() -> None:
    assert check_limit(10) == 10
    for bad in (0, -1, 99999999999999999999, True, 2.0, "5"):
        with pytest.raises(InputError, match="limit must be an integer from 1"):
            check_limit(bad)
    with pytest.raises(InputError, match="lone surrogate"):
        check_session_key("chat\ud800")
    with pytest.raises(InputError, match="a pair of them"):  # two halves are not the emoji
        check_session_key("\ud83d\ude00")
    assert check_session_key("\U0001f600") == "\U0001f600"
    with pytest.raises(InputError, match="at most 1024"):
        check_session_key("k" * 1025)


def test_surrogate_escape_detection() -> None:
    assert has_surrogate_escape(b'{"a": "\\ud83d"}')
    assert has_surrogate_escape(b'{"a": "\\uDC00"}')
    assert not has_surrogate_escape(b'{"a": "\\u00e9 \\u4e2d"}')


def test_a_lone_surrogate_is_stored_as_replacement_and_counted(
    tmp_path: Path, clock: StepClock
) -> None:
    engine = _engine(tmp_path, clock)
    result = engine.record("s", [{"role": "user", "content": "I prefer tea \ud83d always."}])
    assert result.replaced == 1
    engine.record("s", [Message(role="assistant", content="noted \udfff")])
    assert engine.prompt("s", "and \ud800?").tokens > 0
    engine.compact("s")
    assert engine.search("tea")
    assert engine.search("\ud800 tea") is not None
    assert engine.doctor().ok
    raw = stored_session_bytes(Path(engine.location))
    assert raw
    raw.decode("utf-8")  # strict: every stored byte is valid UTF-8
    assert not has_surrogate_escape(raw)
    assert "\ufffd" in engine.session("s").messages[0].text
    engine.close()


def test_a_history_line_written_with_surrogate_escapes_reads_clean(
    tmp_path: Path, clock: StepClock
) -> None:
    engine = _engine(tmp_path, clock)
    root = Path(engine.location)
    engine.close()
    with (root / "memory" / "history.jsonl").open("ab") as handle:
        handle.write(b'{"cursor": 1, "timestamp": "2026-11-30 09:00", "content": "h \\udc00"}\n')
    engine = _engine(tmp_path, StepClock())
    assert [e.content for e in engine.history()] == ["h \ufffd"]
    engine.record("old", [{"role": "assistant", "content": "still works"}])
    engine.compact("old")
    report = engine.doctor()
    assert any(f.check == "text" for f in report.findings), report.findings
    engine.close()


def test_deep_nesting_and_naive_times_are_refused_before_anything_is_written(
    tmp_path: Path, clock: StepClock
) -> None:
    engine = _engine(tmp_path, clock)
    deep = {"role": "user", "content": "x", "meta": _nested(5000)}
    with pytest.raises(InputError, match="nested deeper"):
        engine.record("d", [{"role": "user", "content": "first"}, deep])  # type: ignore[list-item]
    with pytest.raises(InputError, match="no timezone"):
        engine.record("d", [{"role": "user", "content": "x", "timestamp": "2024-01-01T00:00:00"}])
    assert not engine.has_session("d")
    with pytest.raises(InputError, match="limit must be"):
        engine.search("x", limit=99999999999999999999)
    with pytest.raises(InputError, match="limit must be"):
        engine.history(limit=0)
    engine.close()


@pytest.mark.parametrize("stamp", ["0001-01-01T00:00:00+00:00", "0999-06-01T12:00:00+05:00"])
def test_a_message_from_before_year_1000_compacts_like_any_other(
    tmp_path: Path, clock: StepClock, stamp: str
) -> None:
    engine = _engine(tmp_path, clock)
    engine.record(
        "old",
        [
            {
                "role": "user",
                "content": "I live in Oslo and I prefer green tea.",
                "timestamp": stamp,
            },
            {"role": "assistant", "content": "Noted.", "timestamp": stamp},
        ],
    )
    result = engine.compact("old")
    assert result.outcome == "summarised", result
    (entry,) = engine.history(session_key="old")
    assert "Oslo" in entry.content
    assert entry.timestamp[:4] in ("0001", "0999")
    assert engine.search("Oslo")
    engine.close()


def test_wall_clock_pads_the_year_and_survives_the_calendar_edges() -> None:
    assert wall_clock(datetime(1, 1, 1, tzinfo=UTC), local=False) == "0001-01-01 00:00"
    east = datetime(1, 1, 1, 2, 0, tzinfo=timezone(timedelta(hours=5)))
    assert local_time(east).year == 1  # no OverflowError, whatever this system's zone
    west = datetime(9999, 12, 31, 23, 0, tzinfo=timezone(timedelta(hours=-5)))
    assert wall_clock(west)[:4] == "9999"
    assert parse_wall_clock("0001-01-01 00:00") is not None
    assert parse_wall_clock("1-1-1") is None


def test_log_refuses_a_count_out_of_range(tmp_path: Path, clock: StepClock) -> None:
    engine = _engine(tmp_path, clock)
    with pytest.raises(InputError, match="n must be an integer from 1"):
        engine.log(0)
    assert engine.log(1)
    engine.close()
