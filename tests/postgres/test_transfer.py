"""Moving a workspace folder → PostgreSQL → folder loses nothing: cursors, gaps, sessions, files."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from pathlib import Path

import pytest

from reverie.core.ledger import LedgerRecord
from reverie.core.messages import Message, ToolCall
from reverie.core.provenance import EntrySource, Provenance
from reverie.core.screening import RejectedRule
from reverie.errors import InputError
from reverie.storage.folder.backend import FileBackend
from reverie.storage.ports import Backend
from reverie.storage.postgres.backend import PgBackend
from reverie.storage.transfer import transfer

AT = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def _fill(backend: Backend) -> None:
    for i in range(8):
        backend.history.append(f"entry {i} \x00 ✓", session_key=f"tg:{i % 2}", kind="summary")
    backend.dream_cursor.write(4)
    backend.history.trim(keep=5)  # drops 1..3: a gap at the start
    backend.history.edit({8: None})  # the newest is forgotten: the floor stays 8
    call = ToolCall(id="c1", name="lookup", arguments="{}")
    backend.sessions.append_many(
        "tg:0",
        [
            Message(role="user", content="hello", timestamp=AT),
            Message(role="assistant", tool_calls=(call,)),
            Message(role="tool", content="found", tool_call_id="c1"),
        ],
    )
    backend.sessions.set_compacted_upto("tg:0", 1)
    backend.sessions.set_summary("tg:0", "they said hello", AT)
    backend.sessions.update_metadata("tg:0", {"channel": "telegram"})
    backend.files.write("USER", "# User\n\n- Lives in Porto\n")
    backend.skills.write("skills/release/SKILL.md", "# Release\n\n1. Tag\n")
    backend.ledger.append(LedgerRecord(time=AT, job="dream", outcome="ok", model="m"))
    backend.rejections.append([RejectedRule(file="SOUL.md", rule="r", reason="why")], time=AT)
    records = Provenance()
    records.note("USER.md", "- Lives in Porto", (EntrySource(cursor=5, session_key="tg:1"),), AT)
    backend.provenance.write(records)


def _snapshot(backend: Backend) -> object:
    return (
        list(backend.history.entries()),
        backend.history.last_cursor(),
        [backend.sessions.load(info.key) for info in backend.sessions.list()],
        [(info.key, info.message_count, info.compacted_upto) for info in backend.sessions.list()],
        [backend.files.read(name) for name in ("SOUL", "USER", "MEMORY")],
        {path: backend.skills.read(path) for path in backend.skills.paths()},
        backend.dream_cursor.read(),
        list(backend.ledger.records()),
        backend.rejections.latest(),
        backend.provenance.read(),
    )


def test_folder_to_postgres_to_folder_is_lossless(tmp_path: Path, pg_url: str) -> None:
    folder = FileBackend.open(tmp_path / "a", create=True)
    database = PgBackend.open(pg_url, f"moved-{secrets.token_hex(4)}", create=True)
    back = FileBackend.open(tmp_path / "b", create=True)
    try:
        _fill(folder)
        original = _snapshot(folder)
        assert [e.cursor for e in folder.history.entries()] == [4, 5, 6, 7]
        result = transfer(folder, database)
        assert (result.entries, result.sessions, result.messages) == (4, 1, 3)
        assert _snapshot(database) == original
        transfer(database, back)
        assert _snapshot(back) == original
        assert back.history.append("next").cursor == 9  # the floor came along
        assert database.history.append("next").cursor == 9
        assert database.audit.log(1)[0].subject == "import: workspace"
        assert "skills/release/SKILL.md" in {f.path for f in database.audit.log(1)[0].files}
    finally:
        for backend in (folder, database, back):
            backend.close()


def test_transfer_never_merges_into_a_workspace_that_has_history(
    tmp_path: Path, pg_url: str
) -> None:
    folder = FileBackend.open(tmp_path / "a", create=True)
    database = PgBackend.open(pg_url, f"busy-{secrets.token_hex(4)}", create=True)
    try:
        database.history.append("already here")
        with pytest.raises(InputError, match="not empty"):
            transfer(folder, database)
    finally:
        folder.close()
        database.close()
