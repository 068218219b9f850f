"""One contract, two backends: the invariants of the storage seam on files and on PostgreSQL.

Each test runs against the file backend (a workspace folder) and the PostgreSQL backend (a
workspace in the test cluster), through ``reverie.storage.ports`` only. mypy checks that every
PostgreSQL class conforms to its protocol (the assignments below).
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from reverie.core.entries import BadLine
from reverie.core.ledger import LedgerRecord
from reverie.core.messages import Message, ToolCall
from reverie.core.needles import Needle
from reverie.core.provenance import EntrySource, MessageRef, Provenance
from reverie.core.screening import RejectedRule
from reverie.errors import ConfinementError, LockTimeoutError
from reverie.llm.metered import ModelCall
from reverie.storage.folder.backend import FileBackend
from reverie.storage.ports import (
    AuditPort,
    Backend,
    CursorPort,
    DreamStatePort,
    DreamStores,
    HistoryPort,
    IndexPort,
    LedgerPort,
    LockPort,
    MemoryFilesPort,
    ProvenancePort,
    QuarantinePort,
    RejectionsPort,
    SessionsPort,
    SkillFilesPort,
)
from reverie.storage.postgres.audit import PgAudit
from reverie.storage.postgres.backend import PgBackend
from reverie.storage.postgres.dream_stores import PgDreamState, PgSkillFiles
from reverie.storage.postgres.files import PgDreamCursor, PgMemoryFiles
from reverie.storage.postgres.history import PgHistoryLog
from reverie.storage.postgres.index import PgIndex
from reverie.storage.postgres.locks import PgLock
from reverie.storage.postgres.provenance import PgProvenance
from reverie.storage.postgres.records import PgLedger, PgQuarantine, PgRejections
from reverie.storage.postgres.sessions import PgSessionStore

AUDIT: type[AuditPort] = PgAudit
BACKEND: type[Backend] = PgBackend
CURSOR: type[CursorPort] = PgDreamCursor
DREAM_STATE: type[DreamStatePort] = PgDreamState
DREAM_STORES: type[DreamStores] = PgBackend
HISTORY: type[HistoryPort] = PgHistoryLog
INDEX: type[IndexPort] = PgIndex
LEDGER: type[LedgerPort] = PgLedger
LOCK: type[LockPort] = PgLock
FILES: type[MemoryFilesPort] = PgMemoryFiles
PROVENANCE: type[ProvenancePort] = PgProvenance
QUARANTINE: type[QuarantinePort] = PgQuarantine
REJECTIONS: type[RejectionsPort] = PgRejections
SESSIONS: type[SessionsPort] = PgSessionStore
SKILLS: type[SkillFilesPort] = PgSkillFiles


@pytest.fixture(params=["file", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    opened: Backend
    if request.param == "file":
        opened = FileBackend.open(tmp_path / "ws", create=True)
    else:
        url = request.getfixturevalue("pg_url")
        opened = PgBackend.open(url, f"contract-{secrets.token_hex(5)}", create=True)
    yield opened
    opened.close()


def test_cursors_from_many_threads_are_distinct_and_gap_free(backend: Backend) -> None:
    def work(tag: int) -> None:
        for i in range(20):
            backend.history.append(f"t{tag}-{i}", session_key=f"cli:{tag}")

    threads = [threading.Thread(target=work, args=(t,)) for t in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [e.cursor for e in backend.history.read_since(0)] == list(range(1, 121))
    assert backend.history.last_cursor() == 120
    assert [e.cursor for e in backend.history.read_since(118)] == [119, 120]


def test_sessions_keep_messages_and_the_mark(backend: Backend) -> None:
    at = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    sent = [Message(role="user", content=f"m{i}", timestamp=at) for i in range(5)]
    assert backend.sessions.append_many("tg:alice", sent) == range(5)
    backend.sessions.set_compacted_upto("tg:alice", 2)
    session = backend.sessions.load("tg:alice")
    assert list(session.messages) == sent
    assert [m.content for m in session.pending] == ["m2", "m3", "m4"]
    assert [info.key for info in backend.sessions.list()] == ["tg:alice"]


def test_restore_rolls_the_dream_cursor_back_with_the_files(backend: Backend) -> None:
    for i in range(4):
        backend.history.append(f"e{i}")
    backend.files.write("USER", "# User\n\n- Lives in Lisbon\n")
    backend.dream_cursor.write(2)
    first = backend.audit.commit("dream: first")
    backend.files.write("USER", "# User\n\n- Lives in Porto\n")
    backend.dream_cursor.write(4)
    backend.audit.commit("dream: second")
    assert first is not None
    backend.audit.restore(first.sha)
    assert "Lisbon" in backend.files.read("USER")
    assert backend.dream_cursor.read() == 2
    assert backend.audit.log(1)[0].subject.startswith("restore: ")


def test_trim_never_drops_an_undreamt_entry(backend: Backend) -> None:
    for i in range(6):
        backend.history.append(f"e{i}")
    backend.dream_cursor.write(3)
    result = backend.history.trim(keep=0)
    assert result.dropped == 3
    assert [e.cursor for e in backend.history.entries()] == [4, 5, 6]
    assert backend.history.append("next").cursor == 7


def test_a_lock_is_exclusive(backend: Backend) -> None:
    lock, other = backend.lock("dream"), backend.lock("dream")
    entered = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with lock.hold(timeout=5):
            entered.set()
            release.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    assert entered.wait(10)
    with pytest.raises(LockTimeoutError), other.hold(timeout=0):
        pass
    release.set()
    thread.join()
    with other.hold(timeout=5):
        pass


def test_search_finds_entries_and_messages_and_leaves_internal_sessions_out(
    backend: Backend,
) -> None:
    backend.history.append("User moved to Porto in March", session_key="tg:alice")
    backend.sessions.append("tg:alice", Message(role="user", content="my locker code is 4817"))
    backend.sessions.append("dream:1", Message(role="user", content="porto internal note"))
    index = backend.open_index()
    try:
        index.refresh()
        hits = index.search("porto")
        assert [(h.kind, h.cursor) for h in hits] == [("history", 1)]
        assert "Porto" in hits[0].snippet
        found = index.search("locker code")
        assert [(h.kind, h.session_key, h.message_index) for h in found] == [
            ("message", "tg:alice", 0)
        ]
        assert index.search("porto", include_internal=True, sources=("messages",))
        candidates = index.candidates(["locker"], limit=5)
        assert [c.text for c in candidates] == ["my locker code is 4817"]
    finally:
        index.close()


def test_a_source_reference_finds_the_item_it_names_on_both_backends(backend: Backend) -> None:
    """``#h12`` (what every Recalled section tells the model to follow) is a name, not a word."""
    for text in ("first entry", "User moved to Porto in March", "third entry"):
        backend.history.append(text, session_key="tg:alice")
    backend.sessions.append("tg:alice", Message(role="user", content="my locker code is 4817"))
    backend.sessions.append("dream:1", Message(role="user", content="an internal note"))
    index = backend.open_index()
    try:
        index.refresh()
        [entry] = index.search("#h2")
        assert (entry.kind, entry.cursor, entry.session_key) == ("history", 2, "tg:alice")
        assert "Porto" in entry.snippet
        [message] = index.search(" #m0@tg:alice ")
        assert (message.kind, message.session_key, message.message_index) == (
            "message",
            "tg:alice",
            0,
        )
        assert "4817" in message.snippet
        assert index.search("#h99") == []
        assert index.search("#h2", sources=("messages",)) == []
        assert index.search("#h2", session_key="tg:bob") == []
        assert index.search("#m0@dream:1") == []  # internal sessions stay out unless asked
        assert [h.session_key for h in index.search("#m0@dream:1", include_internal=True)] == [
            "dream:1"
        ]
    finally:
        index.close()


def test_skill_files_and_dream_state_are_behind_the_ports_on_both_backends(
    backend: Backend,
) -> None:
    """Every backend keeps skills and dream's back-off state: no caller asks which it is."""
    assert backend.skills.paths() == []
    assert backend.skills.read("skills/tea/SKILL.md") == ""
    backend.skills.write("skills/tea/SKILL.md", "# Tea\n1. Boil\n")
    assert backend.skills.paths() == ["skills/tea/SKILL.md"]
    assert backend.skills.read("skills/tea/SKILL.md") == "# Tea\n1. Boil\n"
    with pytest.raises(ValueError, match="not a skill file path"):
        backend.skills.read("skills/Tea/notes.md")
    assert backend.dream_state.read_text() is None
    backend.dream_state.write_text('{"format": "reverie-dream-state"}\n')
    assert backend.dream_state.read_text() == '{"format": "reverie-dream-state"}\n'


def test_a_folder_skill_reached_through_a_symlink_is_refused(tmp_path: Path) -> None:
    backend = FileBackend.open(tmp_path / "ws", create=True)
    try:
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        (elsewhere / "SKILL.md").write_text("secret", encoding="utf-8")
        (backend.root / "skills").mkdir(exist_ok=True)
        (backend.root / "skills" / "tea").symlink_to(elsewhere)
        with pytest.raises(ConfinementError, match="symlink"):
            backend.skills.read("skills/tea/SKILL.md")
        with pytest.raises(ConfinementError, match="symlink"):
            backend.skills.write("skills/tea/SKILL.md", "overwritten")
        assert (elsewhere / "SKILL.md").read_text(encoding="utf-8") == "secret"
        assert backend.skills.paths() == []
    finally:
        backend.close()


def test_ledger_and_rejections_read_back_what_was_appended(backend: Backend) -> None:
    at = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    backend.ledger.append(
        LedgerRecord(time=at, job="dream", outcome="ok", model="m", tokens_in=10, tokens_out=2)
    )
    assert backend.ledger.summary().by_job["dream"].tokens_in == 10
    backend.rejections.append([RejectedRule(file="SOUL.md", rule="r", reason="why")], time=at)
    assert [r.rule.rule for r in backend.rejections.latest()] == ["r"]


def test_a_metered_call_is_kept_with_its_estimate_and_the_location_names_no_secret(
    backend: Backend,
) -> None:
    at = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    call = ModelCall(
        time=at,
        job="compaction",
        outcome="error",
        model="m",
        tokens_in=0,
        tokens_out=0,
        estimated_in=321,
        duration_ms=12.5,
        session_key="cli:a",
        reason="ProviderError",
    )
    backend.ledger.append_call(call)
    [record] = [r for r in backend.ledger.records() if r is not None]
    assert (record.job, record.outcome, record.estimated_in) == ("compaction", "error", 321)
    assert (record.session_key, record.reason) == ("cli:a", "ProviderError")
    assert backend.location
    assert "@" not in backend.location


def test_read_recent_is_newest_first_and_bounded(backend: Backend) -> None:
    for i in range(6):
        backend.history.append(f"e{i}", session_key="a" if i % 2 else "b")
    recent = backend.history.read_recent(0, limit=2, accept=lambda e: e.session_key == "a")
    assert [e.content for e in recent] == ["e5", "e3"]
    assert [e.content for e in backend.history.read_recent(0, limit=9, max_lines=2)] == [
        "e5",
        "e4",
    ]


def test_read_recent_of_one_session_reads_past_refused_entries_within_its_bound(
    backend: Backend,
) -> None:
    for i in range(40):
        backend.history.append(f"e{i}", session_key="a" if i % 4 == 0 else "b")
    history = backend.history

    of_a = history.read_recent(0, limit=3, session_key="a", accept=lambda e: e.content != "e36")
    picky = history.read_recent(0, limit=2, accept=lambda e: e.content in {"e1", "e2"})

    assert [e.content for e in of_a] == ["e32", "e28", "e24"]
    assert [e.content for e in picky] == ["e2", "e1"]  # the oldest: read page after page
    assert [e.content for e in history.read_recent(30, limit=9, session_key="a")] == ["e36", "e32"]
    assert history.read_recent(0, limit=5, max_lines=3, accept=lambda e: e.cursor < 5) == []
    assert history.read_recent(0, limit=5, session_key="nobody") == []


def test_forgetting_messages_leaves_tombstones_in_place(backend: Backend) -> None:
    backend.sessions.append_many(
        "tg:a", [Message(role="user", content="code 4817"), Message(role="assistant", content="ok")]
    )
    backend.sessions.redact("tg:a", [0])
    messages = backend.sessions.load("tg:a").messages
    assert [(m.role, m.content) for m in messages] == [("user", "[forgotten]"), ("assistant", "ok")]
    assert backend.sessions.delete("tg:a")
    assert not backend.sessions.exists("tg:a")


def test_an_unchanged_commit_is_a_no_op_and_show_names_the_diff(backend: Backend) -> None:
    backend.files.write("MEMORY", "# Memory\n\n- Harbour moorings are free in May\n")
    made = backend.audit.commit("edit: MEMORY.md")
    assert made is not None
    assert backend.audit.commit("edit: MEMORY.md") is None
    detail = backend.audit.show(made.short)
    assert "+- Harbour moorings are free in May" in detail.diff
    assert backend.audit.file_at("HEAD", "memory/MEMORY.md") == (
        b"# Memory\n\n- Harbour moorings are free in May\n"
    )


def test_provenance_records_round_trip_and_are_replaced_whole(backend: Backend) -> None:
    assert backend.provenance.read().records == {}
    at = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    records = Provenance()
    source = EntrySource(
        cursor=3,
        session_key="tg:a",
        time=at,
        kind="summary",
        range=(0, 2),
        messages=(MessageRef(index=1, role="user", time=at),),
    )
    records.note("USER.md", "- Lives in Porto", (source,), at)
    records.note("USER.md", "- Plays the cello", (EntrySource(cursor=4),), at)
    backend.provenance.write(records)
    assert backend.provenance.read() == records
    del records.records[("USER.md", "plays the cello")]
    backend.provenance.write(records)
    assert list(backend.provenance.read().records) == [("USER.md", "lives in porto")]


def test_durable_files_are_listed_and_replaced_by_path_and_nothing_else(backend: Backend) -> None:
    backend.files.write("USER", "# User\n\n- Lives in Porto\n")
    backend.files.write("SOUL", "# Soul\n")
    texts = backend.durable_texts()
    assert list(texts)[:2] == ["SOUL.md", "USER.md"]  # the memory files first, in order
    assert set(texts) <= {"SOUL.md", "USER.md", "memory/MEMORY.md"}
    assert texts["USER.md"] == "# User\n\n- Lives in Porto\n"
    backend.write_durable("USER.md", "# User\n")
    assert backend.files.read("USER") == "# User\n"
    with pytest.raises(ValueError, match="durable"):
        backend.write_durable("memory/history.jsonl", "x")


def test_the_durable_files_read_together_read_as_they_do_one_by_one(backend: Backend) -> None:
    backend.files.write("USER", "# User\n\n- Lives in Porto \u6e2f\n")
    backend.files.write("MEMORY", "")
    together = backend.files.read_all()
    assert list(together) == ["SOUL", "USER", "MEMORY"]
    assert together == {name: backend.files.read(name) for name in together}
    assert together["USER"] == "# User\n\n- Lives in Porto \u6e2f\n"
    assert together["MEMORY"] == ""


def test_purge_steps_scrub_side_records_and_find_what_still_holds_a_text(
    backend: Backend,
) -> None:
    at = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    bad = [
        BadLine(source=Path("x"), line=1, offset=0, raw=b"Porto \xff", reason="bad"),
        BadLine(source=Path("x"), line=2, offset=9, raw=b"Lisbon", reason="bad"),
    ]
    backend.quarantine.keep(bad, now=at)
    backend.history.append("User lives in Porto", session_key="tg:a")
    needle = Needle("porto")
    assert any("history" in place for place in backend.places_holding(needle))
    assert backend.scrub_side_records(needle) == 1
    assert [b.raw for b in backend.quarantine.records()] == [b"Lisbon"]
    assert not any("quarantine" in place for place in backend.places_holding(needle))
    assert backend.scrub_side_records(needle) == 0


def test_a_forgotten_tool_call_keeps_its_ids_on_both_backends(backend: Backend) -> None:
    call = ToolCall(id="c1", name="note", arguments='{"text": "code 4817"}')
    backend.sessions.append_many(
        "tg:t",
        [
            Message(role="assistant", content="", tool_calls=(call,)),
            Message(role="tool", content="code 4817 saved", tool_call_id="c1", name="note"),
        ],
    )
    backend.sessions.redact("tg:t", [0, 1])
    first, second = backend.sessions.load("tg:t").messages
    assert [(c.id, c.name, c.arguments) for c in first.tool_calls] == [("c1", "note", "{}")]
    assert (second.tool_call_id, second.name, second.content) == ("c1", "note", "[forgotten]")


def test_ingest_records_keep_marks_and_the_running_ingest(backend: Backend) -> None:
    records = backend.ingest_records
    assert records.marks() == set()
    assert records.running() is None
    first, second = "a" * 64, "b" * 64
    records.add_marks([first])
    records.add_marks([first, second])  # a mark added twice is kept once
    assert records.marks() == {first, second}
    records.begin(["import:x", "import:y", "import:x"])
    assert records.running() == ["import:x", "import:y"]
    records.begin([])  # a run with no sessions is still a run
    assert records.running() == []
    records.finish()
    assert records.running() is None
    records.finish()  # finishing twice is harmless
    assert records.marks() == {first, second}


def test_entries_and_messages_are_read_by_place_in_one_call_on_both_backends(
    backend: Backend,
) -> None:
    """``why`` reads every source it cites at once: what exists comes back, the rest not."""
    for text in ("first", "second", "third"):
        backend.history.append(text, session_key="tg:alice")
    backend.history.edit({2: None})
    found = backend.history.read_cursors([3, 2, 1, 3, 99])
    assert [(e.cursor, e.content) for e in found] == [(1, "first"), (3, "third")]
    assert backend.history.read_cursors([]) == []
    backend.sessions.append_many(
        "tg:alice", [Message(role="user", content="hi"), Message(role="assistant", content="yo")]
    )
    backend.sessions.append("tg:bob", Message(role="user", content="bob here"))
    got = backend.sessions.messages_at({("tg:alice", 1), ("tg:bob", 0), ("tg:bob", 5), ("x:y", 0)})
    assert {place: m.text for place, m in got.items()} == {
        ("tg:alice", 1): "yo",
        ("tg:bob", 0): "bob here",
    }
    assert backend.sessions.messages_at(set()) == {}
