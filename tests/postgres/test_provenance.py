"""``why``, ``forget`` and ``forget --purge`` with one semantics on both backends.

The provenance scenarios that need no model, run through ``MemoryEngine``'s operations on a
folder workspace and on a PostgreSQL workspace (``tests/provenance`` keeps the folder's own and
the scripted-model ones). "No byte left" is checked independently of reverie's own report: on
a folder, every file under the workspace, git objects inflated (``build.traces``); on
PostgreSQL, every row the workspace can see, in every table, audit rows included, read as text
(and quarantined bytes decoded).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import cast

import pytest

from reverie import MemoryEngine
from reverie.core.entries import BadLine
from reverie.core.tombstones import FORGOTTEN
from reverie.storage.postgres.backend import PgBackend
from reverie.storage.postgres.database import Database
from reverie.storage.postgres.schema import _TENANT_TABLES
from tests.conftest import StepClock
from tests.postgres.conftest import new_workspace
from tests.provenance.build import MOVE, NO_MODEL, PORTO, SISTER, converse, traces

pytestmark = pytest.mark.slow

Opener = Callable[[], MemoryEngine]


@pytest.fixture(params=["file", "postgres"])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def where(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, str | None]:
    """(folder or workspace name, database URL or None)."""
    if kind == "file":
        return str(tmp_path / "ws"), None
    url = str(request.getfixturevalue("pg_url"))
    return new_workspace(url, "prov"), url


@pytest.fixture
def opener(where: tuple[str, str | None], clock: StepClock) -> Opener:
    name, url = where
    return lambda: MemoryEngine.open(
        name, NO_MODEL, store=url, clock=clock, environ={}, dense="off"
    )


@pytest.fixture
def engine(opener: Opener) -> Iterator[MemoryEngine]:
    with opener() as opened:
        yield opened


def _two_people(engine: MemoryEngine) -> None:
    converse(engine, "cli:me", PORTO)
    converse(engine, "cli:sis", SISTER)
    assert engine.dream().outcome == "completed"


def _bullets(engine: MemoryEngine) -> list[str]:
    texts = (engine.read_memory(name) for name in ("SOUL", "USER", "MEMORY"))
    return [line for text in texts for line in text.splitlines() if line.startswith("- ")]


def _rows_holding(url: str, name: str, text: str) -> list[str]:
    """Every table of workspace ``name`` with a row whose text (or bytes) holds ``text``."""
    wanted = text.casefold()
    found = []
    database = Database(url)
    try:
        tenant = database.tenant(name)
        with tenant.transaction() as conn:
            for table in (*_TENANT_TABLES, "provenance"):
                for (row,) in conn.execute(f"SELECT t::text FROM {table} t").fetchall():
                    if wanted in str(row).casefold():
                        found.append(table)
            for (raw,) in conn.execute("SELECT raw FROM quarantine").fetchall():
                if wanted in bytes(cast("bytes", raw)).decode("utf-8", "replace").casefold():
                    found.append("quarantine (bytes)")
    finally:
        database.close()
    return sorted(set(found))


def test_why_names_the_entry_and_the_message_said(engine: MemoryEngine) -> None:
    _two_people(engine)
    report = engine.why("porto")
    [line] = report.lines
    assert (line.origin, line.file) == ("dream", "USER.md")
    assert "Porto" in line.text
    [entry] = line.entries  # the sister's entry does not support it
    assert entry.session_key == "cli:me"
    assert entry.text is not None
    assert "Porto" in entry.text
    assert [(m.index, m.role) for m in entry.messages] == [(2, "user")]
    assert entry.messages[0].text == PORTO[2]["content"]
    assert entry.messages[0].time is not None
    document = json.loads(json.dumps(report.to_json()))
    assert document["lines"][0]["entries"][0]["messages"][0]["role"] == "user"
    assert engine.why("anything else").lines == ()
    with pytest.raises(ValueError, match="text"):
        engine.why("  ")


def test_a_line_a_person_edits_reads_as_edited_by_hand(engine: MemoryEngine) -> None:
    converse(engine, "cli:me", PORTO)
    engine.dream()
    text = engine.read_file("USER.md")
    [porto] = [line for line in text.splitlines() if "Porto" in line]
    new = text.replace(porto, "- Lives in Porto, Portugal (typed by me)")
    engine.edit_file("USER.md", new, author="Ada <ada@example.org>")
    edited = engine.why("Porto").lines[0]
    assert (edited.origin, edited.entries) == ("hand", ())
    assert engine.why("biologist").lines[0].origin == "dream"


def test_forget_removes_the_line_cuts_the_entry_and_tombstones_the_message(
    engine: MemoryEngine, where: tuple[str, str | None]
) -> None:
    _two_people(engine)
    assert engine.search("Porto")
    plan = engine.forget_plan("Porto")
    assert [line.reason for line in plan.lines] == ["matches"]
    assert engine.log(1)[0].subject.startswith("dream:")  # the plan changed nothing
    report = engine.forget("Porto")
    assert report.removed
    assert report.commit == engine.log(1)[0].sha
    assert not any("Porto" in line for line in _bullets(engine))
    assert any("biologist" in line for line in _bullets(engine))  # same entry, other fact
    assert any("cello" in line for line in _bullets(engine))  # other session untouched
    entries = engine.history()
    assert [e.cursor for e in entries] == [1, 2]
    assert "Porto" not in entries[0].content
    assert "biologist" in entries[0].content
    name, url = where
    if url is None:  # the log's own file: the entry's line was rewritten, not hidden
        lines = (Path(name) / "memory" / "history.jsonl").read_text("utf-8").splitlines()
        assert [json.loads(line)["cursor"] for line in lines] == [1, 2]
        assert "Porto" not in lines[0]
    session = engine.session("cli:me")
    assert (session.messages[2].content, session.messages[2].role) == (FORGOTTEN, "user")
    assert len(session.messages) == len(PORTO)
    assert session.messages[4].content == PORTO[4]["content"]
    assert engine.search("Porto") == []
    assert engine.search("cello")
    assert engine.why("Porto").lines == ()
    assert engine.log(1)[0].subject.startswith("forget: 1 line(s), entries #1, messages cli:me#2")
    assert engine.doctor().ok


def test_cursors_are_never_reused_after_forgetting_the_last_entry(
    engine: MemoryEngine, where: tuple[str, str | None]
) -> None:
    _two_people(engine)
    converse(engine, "cli:me", MOVE)
    assert engine.forget("Braga").removed
    assert [e.cursor for e in engine.history()] == [1, 2]
    assert engine.history(since=1)[0].cursor == 2
    assert engine.history(since=2) == []
    engine.record("cli:me", [{"role": "user", "content": "I like green tea."}])
    engine.compact("cli:me")
    assert [e.cursor for e in engine.history()] == [1, 2, 4]
    name, url = where
    if url is None:  # a folder keeps its last cursor in a file of its own
        assert (Path(name) / "memory" / ".cursor").read_text().strip() == "4"
    assert engine.dream().outcome == "completed"
    assert engine.doctor().ok


def test_forget_with_nothing_to_forget_changes_nothing(engine: MemoryEngine) -> None:
    _two_people(engine)
    before = (engine.log(5), engine.history(), engine.sessions())
    report = engine.forget("Reykjavik")
    assert (report.removed, report.commit) == (False, None)
    assert (engine.log(5), engine.history(), engine.sessions()) == before
    with pytest.raises(ValueError, match="text"):
        engine.forget(" 1 ")


def test_forget_purge_leaves_the_text_nowhere_and_everything_else_intact(
    engine: MemoryEngine, where: tuple[str, str | None]
) -> None:
    _two_people(engine)
    converse(engine, "cli:me", MOVE)  # a correction: "not in Porto any more"
    engine.dream()
    engine.restore("HEAD~1")  # audit versions with and without it
    engine.dream()
    name, url = where
    if url is not None:  # a damaged record kept aside, as a folder quarantines a bad line
        bad = BadLine(source=Path("import"), line=3, offset=0, raw=b"Porto!", reason="bad")
        _quarantine(url, name, bad)
        assert _rows_holding(url, name, "Porto")
    engine.record("cli:x", [{"role": "user", "content": "note: nothing about Porto here"}])

    report = engine.forget("Porto", purge=True)

    assert report.purge is not None
    assert report.purge.clean, report.purge
    assert report.purge.commits_rewritten > 0
    if url is not None:
        assert _rows_holding(url, name, "Porto") == []
        assert report.purge.records_dropped == 1
    assert not any("Porto" in c.subject or "Porto" in c.message for c in engine.log(50))
    assert any("cello" in line for line in _bullets(engine))
    assert any("biologist" in line for line in _bullets(engine))
    assert engine.search("cello")
    assert engine.session("cli:sis").messages[0].content == SISTER[0]["content"]
    assert engine.log(1)[0].subject.startswith("forget:")
    engine.restore("HEAD~2")  # the rewritten history still restores
    assert "Porto" not in engine.read_memory("USER")
    converse(engine, "cli:me", [{"role": "user", "content": "I love the cello too."}])
    assert engine.dream().outcome == "completed"


def test_purge_after_a_plain_forget_still_scrubs_the_audit_history(
    engine: MemoryEngine, where: tuple[str, str | None]
) -> None:
    _two_people(engine)
    engine.forget("Porto")
    name, url = where
    place = next(i for i, c in enumerate(engine.log(10)) if c.subject.startswith("dream:"))
    assert "Porto" in engine.show(f"HEAD~{place}").diff  # the audit keeps the old lines
    if url is None:
        assert traces(Path(name) / ".git", "Porto")
    report = engine.forget("Porto", purge=True)
    assert not report.removed
    assert report.purge is not None
    assert report.purge.clean, report.purge
    assert "Porto" not in engine.show(f"HEAD~{place}").diff  # git's purge renames commits
    if url is not None:
        assert _rows_holding(url, name, "Porto") == []
    else:  # closed, so that no open file still holds a page of the old text
        engine.close()
        assert traces(Path(name), "Porto") == []


def test_forget_purge_of_chinese_text_leaves_it_nowhere(
    engine: MemoryEngine, where: tuple[str, str | None]
) -> None:
    converse(engine, "wx:li", [{"role": "user", "content": "我住在上海，我是一名医生。"}])
    converse(engine, "wx:li", [{"role": "user", "content": "我喜欢喝绿茶。"}])
    engine.dream()
    engine.search("上海")  # the search index holds it now
    name, url = where
    if url is None:
        assert traces(Path(name), "上海")
    report = engine.forget("上海", purge=True)
    assert report.purge is not None
    assert report.purge.clean, report.purge
    assert any("绿茶" in line for line in _bullets(engine))
    assert engine.doctor().ok
    if url is not None:
        assert _rows_holding(url, name, "上海") == []
    else:  # closed, so that no open file still holds a page of the old text
        engine.close()
        assert traces(Path(name), "上海") == []
        assert traces(Path(name), json.dumps("上海")[1:-1]) == []  # nor JSON's escaped form


def _quarantine(url: str, name: str, bad: BadLine) -> None:
    backend = PgBackend.open(url, name)
    try:
        backend.quarantine.keep([bad], now=datetime(2026, 11, 30, tzinfo=UTC))
    finally:
        backend.close()


def test_a_fact_forgotten_through_one_server_is_gone_through_the_other(
    pg_url: str, clock: StepClock
) -> None:
    name = new_workspace(pg_url, "two")
    with (
        MemoryEngine.open(name, NO_MODEL, store=pg_url, clock=clock, environ={}, dense="off") as a,
        MemoryEngine.open(name, NO_MODEL, store=pg_url, clock=clock, environ={}, dense="off") as b,
    ):
        _two_people(a)
        assert b.why("Porto").lines[0].entries[0].session_key == "cli:me"
        assert b.forget("Porto", purge=True).removed
        assert a.why("Porto").lines == ()
        assert a.search("Porto") == []
        assert a.forget_plan("Porto").empty
        assert a.session("cli:me").messages[2].content == FORGOTTEN
