"""``reverie ingest`` into a PostgreSQL workspace, and back out with ``reverie store export``.

Ingest runs on the storage seam (``reverie.storage.ports.IngestStores``): the same sources ingested
into a folder and into a database workspace give the same sessions, history and durable files,
and exporting the database workspace to a folder loses none of it.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import psycopg
import pytest
from typer.testing import CliRunner

from reverie.cli import app
from reverie.config.settings import Config
from reverie.core.messages import Message
from reverie.core.session import is_internal
from reverie.engine.facade import MemoryEngine
from reverie.errors import SchemaVersionError
from reverie.llm.scripted import ScriptedProvider
from reverie.storage.folder.backend import FileBackend
from reverie.storage.ports import IngestRecordsPort
from reverie.storage.postgres import schema
from reverie.storage.postgres.backend import PgBackend
from reverie.storage.postgres.database import Database, Tenant
from reverie.storage.postgres.ingest_records import PgIngestRecords
from reverie.testing.folders import workspace_of
from tests.conftest import StepClock
from tests.ingest.targets import snapshot
from tests.postgres.conftest import new_workspace

pytestmark = pytest.mark.slow

RECORDS: type[IngestRecordsPort] = PgIngestRecords  # mypy checks the conformance

STILL = StepClock(step=timedelta(0))
EXAMPLES = Path(__file__).parents[2] / "examples"


def _nanobot(tmp_path: Path) -> Path:
    """A small nanobot workspace: its own durable files, history and one session."""
    nano = tmp_path / "nanobot"
    (nano / "memory").mkdir(parents=True)
    (nano / "sessions").mkdir()
    (nano / "USER.md").write_text("# User\n\n- Name: Ana\n")
    (nano / "memory" / "MEMORY.md").write_text("# Memory\n\n- Project: kelp\n")
    history = [
        {"cursor": 1, "timestamp": "2026-10-01 09:00", "content": "- [durable] kelp uses Rust"},
        {"cursor": 2, "timestamp": "2026-10-02 09:00", "content": "- User: I live in Porto."},
    ]
    (nano / "memory" / "history.jsonl").write_text("".join(json.dumps(h) + "\n" for h in history))
    (nano / "memory" / ".dream_cursor").write_text("1")
    session = [
        {"_type": "metadata", "key": "telegram:7", "created_at": "2026-10-01T09:00:00"},
        {"role": "user", "content": "hi", "timestamp": "2026-10-01T09:00:00"},
        {"role": "assistant", "content": "hello", "timestamp": "2026-10-01T09:00:01"},
        {"role": "user", "content": "I prefer tea.", "timestamp": "2026-10-02T09:00:00"},
    ]
    lines = "".join(json.dumps(s) + "\n" for s in session)
    (nano / "sessions" / "telegram_7.jsonl").write_text(lines)
    return nano


@pytest.fixture
def name(pg_url: str) -> str:
    """A new, empty workspace in the test database."""
    return new_workspace(pg_url, "ingest")


@pytest.fixture
def stores(pg_url: str, name: str) -> Iterator[PgBackend]:
    """The workspace's stores, opened beside the engine (the same rows)."""
    backend = PgBackend.open(pg_url, name)
    yield backend
    backend.close()


def test_ingest_into_postgres_matches_a_folder_and_exports_losslessly(
    tmp_path: Path, pg_url: str, name: str, stores: PgBackend
) -> None:
    sources = [_nanobot(tmp_path), EXAMPLES / "conversations.json", EXAMPLES / "chatgpt-export"]
    # A clock that stands still: the two session stores read it a different number of times.
    with MemoryEngine.open(
        tmp_path / "folder", Config(), clock=STILL, environ={}, dense="off"
    ) as local:
        on_folder = local.ingest(sources)
        expected = snapshot(workspace_of(local))
    with MemoryEngine.open(
        name, Config(), store=pg_url, clock=STILL, environ={}, dense="off"
    ) as db:
        on_db = db.ingest(sources)
        assert db.status().pending_entries == 0
        assert db.search("DuckDB")
        assert db.doctor().ok
    assert (on_db.sessions, on_db.messages_added, on_db.entries, on_db.commits) == (
        on_folder.sessions,
        on_folder.messages_added,
        on_folder.entries,
        on_folder.commits,
    )
    assert on_db.problems == on_folder.problems == ()
    assert snapshot(stores) == expected
    assert "Name: Ana" in stores.files.read("USER")
    assert "Postgres 16" in stores.files.read("MEMORY")
    assert stores.ingest_records.running() is None
    assert len(stores.ingest_records.marks()) >= 3

    out = tmp_path / "exported"
    exported = CliRunner().invoke(
        app, ["store", "export", str(out), "--store", pg_url, "-w", name], env={}
    )
    assert exported.exit_code == 0, exported.output
    back = FileBackend.open(out)
    try:
        assert snapshot(back) == snapshot(stores)
        assert list(back.ledger.records()) == list(stores.ledger.records())
    finally:
        back.close()


def test_the_command_line_ingests_the_examples_into_a_database_workspace(
    pg_url: str, name: str, stores: PgBackend
) -> None:
    env = {"REVERIE_DREAM_MODE": "model-free", "REVERIE_IDLE_MINUTES": "0"}
    examples = [str(EXAMPLES / "conversations.json"), str(EXAMPLES / "chatgpt-export")]
    args = ["--store", pg_url, "-w", name, "ingest", *examples]  # as ./dev demo runs it
    result = CliRunner().invoke(app, args, env=env)
    assert result.exit_code == 0, result.output
    assert "imported 6 session(s): 54 message(s) added" in result.output
    imported = [i for i in stores.sessions.list() if not is_internal(i.key)]
    assert len(imported) == 6  # and the dream transcripts, as on a folder
    assert "Postgres 16" in stores.files.read("MEMORY")
    again = CliRunner().invoke(app, args, env=env)
    assert again.exit_code == 0, again.output
    assert "0 message(s) added, 54 already there; 0 history entr(ies)" in again.output


def test_a_version_1_database_is_refused_at_open_and_migrated_by_init(
    tmp_path: Path, pg_url: str
) -> None:
    """A database made before the ingest tables: open says so, ``reverie init`` migrates it."""
    dbname = f"v1_{secrets.token_hex(4)}"
    admin = pg_url.replace("reverie_app@", "postgres@")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {dbname} OWNER reverie_app")
    url = pg_url.rsplit("/", 1)[0] + "/" + dbname
    (version, statements), *_later = schema.MIGRATIONS
    with psycopg.connect(url, autocommit=True) as conn, conn.transaction():
        conn.execute(statements.encode("utf-8"))
        conn.execute("INSERT INTO reverie_schema (version) VALUES (%s)", (version,))
        (workspace_id,) = conn.execute(
            "INSERT INTO workspaces (name) VALUES ('old') RETURNING id"
        ).fetchone() or (0,)
        conn.execute("SELECT set_config('reverie.workspace', %s, true)", (str(workspace_id),))
        conn.execute(
            "INSERT INTO workspace_state (workspace_id, last_cursor) VALUES (%s, 1)",
            (workspace_id,),
        )
        conn.execute(
            "INSERT INTO history (workspace_id, cursor, stamp, content)"
            " VALUES (%s, 1, '2026-10-01 09:00', 'kept from version 1')",
            (workspace_id,),
        )
    with pytest.raises(SchemaVersionError, match=f"schema version {version} is older"):
        PgBackend.open(url, "old")
    env = {"REVERIE_DREAM_MODE": "model-free"}
    said = CliRunner().invoke(app, ["init", "--store", url, "-w", "old"], env=env)
    assert said.exit_code == 0, said.output
    assert f"schema {version} -> {schema.SCHEMA_VERSION}" in said.output
    nano = _nanobot(tmp_path)
    with MemoryEngine.open("old", Config(), store=url, environ={}, dense="off") as memory:
        assert memory.ingest([nano]).messages_added == 3
        assert memory.history()[0].content == "kept from version 1"
        assert memory.ingest([nano]).entries == 0


def test_a_workspace_never_sees_another_workspaces_ingest_records(
    database: Database, tenant: Tenant
) -> None:
    other = database.tenant(f"{tenant.name}-other", create=True)
    PgIngestRecords(other).add_marks(["c" * 64])
    PgIngestRecords(other).begin(["import:secret"])
    mine = PgIngestRecords(tenant)
    assert mine.marks() == set()
    assert mine.running() is None
    mine.finish()  # deletes only its own run
    assert PgIngestRecords(other).running() == ["import:secret"]
    with tenant.transaction() as conn:
        assert conn.execute("SELECT count(*) FROM ingest_marks").fetchone() == (0,)


def test_ingest_with_a_model_runs_on_a_database_workspace(
    tmp_path: Path, pg_url: str, name: str, stores: PgBackend
) -> None:
    model = ScriptedProvider()
    for _ in range(40):  # compaction summaries, then dream's replies (it edits nothing)
        model.reply("- [durable] User lives in Porto.")
    with MemoryEngine.open(
        name, Config(), store=pg_url, provider=model, environ={}, dense="off"
    ) as memory:
        assert memory.mode == "model"
        report = memory.ingest([_nanobot(tmp_path)])
    assert model.requests  # the model was asked: this ingest did not fall back to model-free
    assert stores.history.last_cursor() >= 2
    assert stores.ingest_records.running() is None
    assert report.dream_runs >= 1
    assert [c.subject for c in stores.audit.log() if c.subject.startswith("dream:")]


def _lived_in(memory: MemoryEngine) -> None:
    """A database workspace with live sessions, a compaction, a dream and a later entry."""
    for key, fact in (("tg:ana", "I moved to Utrecht"), ("tg:ben", "we picked DuckDB")):
        memory.record(
            key, [Message(role="user", content=fact), Message(role="assistant", content="Noted.")]
        )
        memory.compact(key)
    memory.dream()
    memory.record("tg:ana", [Message(role="user", content="I also keep bees")])
    memory.compact("tg:ana")


def test_a_reverie_folder_exported_from_postgres_ingests_back_whole(
    tmp_path: Path, pg_url: str, name: str, stores: PgBackend
) -> None:
    with MemoryEngine.open(
        name, Config(), store=pg_url, clock=STILL, environ={}, dense="off"
    ) as memory:
        _lived_in(memory)
    folder = tmp_path / "team"
    args = ["store", "export", str(folder), "--store", pg_url, "-w", name]
    assert CliRunner().invoke(app, args, env={}).exit_code == 0
    again = f"{name}-again"
    Database(pg_url).tenant(again, create=True).database.close()
    with MemoryEngine.open(
        again, Config(), store=pg_url, clock=STILL, environ={}, dense="off"
    ) as memory:
        report = memory.ingest([folder])
        assert report.problems == ()
        assert memory.ingest([folder]).messages_added == 0  # idempotent
    back = PgBackend.open(pg_url, again)
    try:
        for info in stores.sessions.list():
            if is_internal(info.key):
                continue  # dream transcripts stay behind (ingest leaves them out)
            theirs = stores.sessions.load(info.key)
            ours = back.sessions.load(f"import:nanobot:team:{info.key}")
            assert ours.messages == theirs.messages
            assert ours.compacted_upto == len(ours.messages)  # all compacted, none redone
        for file in ("SOUL", "USER", "MEMORY"):  # adopted (this workspace held starter text),
            mine = set(back.files.read(file).splitlines())  # then dreamt what theirs had not
            assert set(stores.files.read(file).splitlines()) <= mine
        contents = {e.content for e in back.history.entries()}
        assert all(
            e.content in contents for e in stores.history.read_since(stores.dream_cursor.read())
        )
    finally:
        back.close()
