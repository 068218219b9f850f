"""A nanobot 0.3.5 workspace whose dream had consumed part of its history: all of it arrives.

nanobot's dream consumed the first 10 of 30 history entries (``memory/.dream_cursor`` = 10):
their facts are in its files. All 30 arrive; the 10 arrive consumed (the dream cursor moves
past them, with an audit commit), so the ingest's dreams read only the other 20; ``search``
finds an entry of each kind. The internal ``_hidden_history`` turn nanobot writes into a
session is not imported as a message of the person. A second ingest adds nothing. Both
backends (``ingest_target``), the shape 0.3.5 writes (fixtures, not the nanobot package).
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from reverie.storage.ports import Stores
from tests.ingest.targets import Target

WORKSPACE_ID = "fedcba9876543210fedcba9876543210"
PLACES = ["Bergen", "Tromso", "Alesund", "Bodo", "Narvik", "Molde", "Hamar", "Gjovik"]


def _content(cursor: int) -> str:
    return f"- Mia visited trip{cursor:02d}town ({PLACES[cursor % len(PLACES)]}) in spring"


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    root = home / ".nanobot" / "workspace"
    (root / "memory").mkdir(parents=True)
    (root / ".nanobot").mkdir()
    (root / ".nanobot" / "workspace-id").write_text(WORKSPACE_ID + "\n")
    (root / "USER.md").write_text("# User\n\n- Name: Mia\n")
    entries = [
        {
            "cursor": cursor,
            "timestamp": f"2026-10-{1 + cursor // 3:02d} 09:{cursor:02d}",
            "content": _content(cursor),
            "session_key": "telegram:1",
        }
        for cursor in range(1, 31)
    ]
    (root / "memory" / "history.jsonl").write_text("".join(json.dumps(e) + "\n" for e in entries))
    (root / "memory" / ".cursor").write_text("30")
    (root / "memory" / ".dream_cursor").write_text("10")
    folder = home / ".nanobot" / "sessions" / WORKSPACE_ID
    folder.mkdir(parents=True)
    (folder / ".workspace").write_text(f"{root}\n")
    lines = [
        {"_type": "metadata", "key": "telegram:1", "created_at": "2026-10-01T08:00:00"}
        | {"last_archived": 0},
        {"role": "user", "content": "[internal] earlier turns replayed", "_hidden_history": True},
        {"role": "user", "content": "I grow tomatoes.", "timestamp": "2026-10-11T09:00:00"},
        {"role": "assistant", "content": "Noted.", "timestamp": "2026-10-11T09:00:02"},
    ]
    stem = base64.urlsafe_b64encode(b"telegram:1").decode().rstrip("=")
    (folder / f"{stem}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return root


def _imported(stores: Stores) -> list[str]:
    return [e.content for e in stores.history.entries() if "town (" in e.content]


def test_history_nanobot_had_dreamt_arrives_whole_and_consumed(
    workspace: Path, ingest_target: Target
) -> None:
    engine, stores = ingest_target.engine, ingest_target.stores
    report = engine.ingest([workspace])
    assert report.problems == ()
    assert report.notes == ()
    assert _imported(stores) == [_content(cursor) for cursor in range(1, 31)]
    consumed = next(e for e in stores.history.entries() if e.content == _content(10))
    waiting = next(e for e in stores.history.entries() if e.content == _content(11))
    assert stores.dream_cursor.read() >= consumed.cursor
    subjects = [c.subject for c in stores.audit.log(50)]
    assert "import: 10 history entr(ies) nanobot's dream had consumed" in subjects
    assert report.dream_runs >= 1  # the other 20 were dreamt during the ingest
    assert stores.dream_cursor.read() >= waiting.cursor
    assert engine.search("trip03town")  # consumed: found all the same
    assert engine.search("trip25town")
    texts = [m.text for m in engine.session("import:nanobot:workspace:telegram:1").messages]
    assert texts == ["I grow tomatoes.", "Noted."]  # the hidden turn is nanobot's, not Mia's
    last = stores.history.last_cursor()
    again = engine.ingest([workspace])
    assert (again.entries, again.messages_added) == (0, 0)
    assert stores.history.last_cursor() == last


def test_consumed_history_waits_for_dream_when_entries_here_wait_already(
    workspace: Path, ingest_target: Target
) -> None:
    engine, stores = ingest_target.engine, ingest_target.stores
    stores.history.append("- an entry of this workspace, not dreamt yet", session_key="cli:x")
    cursor_before = stores.dream_cursor.read()
    report = engine.ingest([workspace])
    assert any("already consumed" in note for note in report.notes)
    assert len(_imported(stores)) == 30
    assert stores.dream_cursor.read() >= cursor_before
