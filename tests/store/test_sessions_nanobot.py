"""Importing nanobot session files: messages, timestamps, metadata and the mark survive."""

from __future__ import annotations

import json
import logging
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from reverie import SessionImportError
from reverie.storage.folder.nanobot_sessions import (
    import_nanobot_session,
    read_nanobot_file,
    read_nanobot_session,
)
from reverie.storage.folder.workspace import Workspace

if TYPE_CHECKING:
    from reverie.core.messages import JSONObject

FIXTURE = Path(__file__).parents[1] / "fixtures" / "nanobot_session.jsonl"
LISBON = timezone(timedelta(hours=0))
SHANGHAI = timezone(timedelta(hours=8))


def _lines() -> list[JSONObject]:
    return [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]


def _same_instant(naive_text: object, aware: object, zone: timezone) -> bool:
    assert isinstance(naive_text, str)
    assert isinstance(aware, datetime)
    return datetime.fromisoformat(naive_text).replace(tzinfo=zone) == aware


def test_fixture_imports_losslessly(tmp_path: Path) -> None:
    header, *raw_messages = _lines()
    session = read_nanobot_session(FIXTURE, local_tz=SHANGHAI)
    assert session.key == "telegram:80417"
    assert session.compacted_upto == 4
    assert _same_instant(header["created_at"], session.created_at, SHANGHAI)
    assert _same_instant(header["updated_at"], session.updated_at, SHANGHAI)
    assert session.metadata == {"chat_title": "Trip planning", "language": "en"}
    assert session.summary is not None
    assert session.summary.text.startswith("User is planning a week in Lisbon")
    assert session.summary.last_active.tzinfo is SHANGHAI
    assert len(session.messages) == len(raw_messages)
    for raw, message in zip(raw_messages, session.messages, strict=True):
        assert _same_instant(raw["timestamp"], message.timestamp, SHANGHAI)
        exported = message.to_json()
        exported.pop("timestamp")
        original = {k: v for k, v in raw.items() if k != "timestamp"}
        assert exported == original
    workspace = Workspace.open(tmp_path / "ws", create=True)
    info = import_nanobot_session(workspace.sessions, FIXTURE, local_tz=SHANGHAI)
    assert (info.key, info.message_count, info.compacted_upto) == ("telegram:80417", 6, 4)
    assert workspace.sessions.load("telegram:80417") == session


def test_naive_times_default_to_the_system_zone() -> None:
    session = read_nanobot_session(FIXTURE)
    first = session.messages[0].timestamp
    assert first is not None
    assert first.tzinfo is not None
    assert first == datetime.fromisoformat("2026-11-02T08:41:12.503118").astimezone()


def test_corrupt_last_consolidated_resets_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    header, *messages = _lines()
    header["last_consolidated"] = 99
    copy = tmp_path / "telegram_80417.jsonl"
    copy.write_text("\n".join(json.dumps(obj) for obj in [header, *messages]) + "\n")
    with caplog.at_level(logging.WARNING):
        session = read_nanobot_session(copy, local_tz=LISBON)
    assert session.compacted_upto == 0
    assert len(session.messages) == 6
    assert "last_consolidated 99" in caplog.text


def test_a_bad_line_is_reported_with_its_number(tmp_path: Path) -> None:
    copy = tmp_path / "broken.jsonl"
    copy.write_text(FIXTURE.read_text(encoding="utf-8") + '{"role": "wizard"}\n')
    with pytest.raises(SessionImportError) as caught:
        read_nanobot_session(copy)
    assert caught.value.line == 8


def test_a_file_without_a_metadata_line_needs_a_key(tmp_path: Path) -> None:
    copy = tmp_path / "bare.jsonl"
    copy.write_text('{"role": "user", "content": "hi"}\n')
    with pytest.raises(SessionImportError, match="no session key"):
        read_nanobot_session(copy)
    session = read_nanobot_session(copy, key="cli:bare")
    assert session.key == "cli:bare"
    assert [m.text for m in session.messages] == ["hi"]


@pytest.mark.parametrize(
    ("marks", "expected"),
    [
        ({"last_archived": 2, "last_consolidated": 1}, 2),
        ({"last_consolidated": 1}, 1),
        ({"last_archived": True, "last_consolidated": 1}, 1),
        ({}, 0),
    ],
)
def test_last_archived_is_read_first_then_last_consolidated(
    tmp_path: Path, marks: dict[str, object], expected: int
) -> None:
    lines: list[dict[str, object]] = [
        {"_type": "metadata", "key": "k", **marks},
        {"_type": "provider_state", "state": {"id": "r1"}},
        {"role": "user", "content": "one"},
        {"role": "assistant", "content": "two"},
        {"_type": "checkpoint_note", "at": 3},
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    read = read_nanobot_file(path, local_tz=LISBON)
    assert read.skipped == 2
    assert [m.text for m in read.session.messages] == ["one", "two"]
    assert read.session.compacted_upto == expected
