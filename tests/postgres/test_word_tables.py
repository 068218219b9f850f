"""The word tables and item counts of schema 8 (``terms_schema``) follow every write.

Invariant, checked in SQL after every kind of write the stores make: a workspace's
``history_terms`` / ``message_terms`` rows are exactly ``(lexeme, doc)`` of every word of
every item's ``words``, and its ``item_counts`` sum to its history entries plus messages.
Also: the counts fold without losing a write, two processes writing one workspace at once
lose nothing, a deleted workspace takes its rows and no other's, and a search's match can use
the word table's btree for the servers' ordinary role under row-level security.
"""

from __future__ import annotations

import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from reverie.core.messages import Message
from reverie.storage.postgres import ranking, tsearch
from reverie.storage.postgres.database import Database, Tenant
from reverie.storage.postgres.history import NewEntry, PgHistoryLog
from reverie.storage.postgres.index import PgIndex
from reverie.storage.postgres.search_sql import WINDOW
from reverie.storage.postgres.sessions import PgSessionStore

from .conftest import new_workspace

WORKER = Path(__file__).with_name("pg_worker.py")

_WORDS = (
    "SELECT l.lexeme, x.doc FROM {table} AS x, unnest(tsvector_to_array(x.words)) AS l(lexeme)"
    " WHERE x.workspace_id = %(ws)s"
)
_KEPT = "SELECT lexeme, doc FROM {terms} WHERE workspace_id = %(ws)s"


def _agrees(tenant: Tenant) -> tuple[int, int]:
    """Assert the invariant for ``tenant``; return (word rows, items)."""
    params = {"ws": tenant.id}
    words = 0
    with tenant.transaction() as conn:
        for table, terms in (("history", "history_terms"), ("messages", "message_terms")):
            expected = set(conn.execute(_WORDS.format(table=table), params).fetchall())
            kept = conn.execute(_KEPT.format(terms=terms), params).fetchall()
            assert len(kept) == len(set(kept))
            assert set(kept) == expected, table
            words += len(kept)
        row = conn.execute(
            "SELECT (SELECT count(*) FROM history WHERE workspace_id = %(ws)s)"
            " + (SELECT count(*) FROM messages WHERE workspace_id = %(ws)s),"
            " (SELECT coalesce(sum(n), 0) FROM item_counts WHERE workspace_id = %(ws)s)",
            params,
        ).fetchone()
    assert row is not None
    assert row[0] == row[1]
    return words, int(str(row[0]))


def test_the_word_tables_and_counts_follow_every_kind_of_write(tenant: Tenant) -> None:
    history, sessions = PgHistoryLog(tenant), PgSessionStore(tenant)
    history.append_many(
        [NewEntry(text="the harbour at dawn"), NewEntry(text="我每天喝咖啡 every day")]
    )
    history.append("a single entry about the lighthouse", session_key="cli:a")
    sessions.append_many(
        "cli:a",
        [
            Message(role="user", content="where is the harbour"),
            Message(role="assistant", content="east"),
        ],
    )
    sessions.append("cli:b", Message(role="user", content="plans for Kyoto in April"))
    words, items = _agrees(tenant)
    assert items == 6
    assert words > 15

    history.edit({1: "the harbour at dusk, rewritten", 2: None})  # an update and a delete
    sessions.redact("cli:a", [0])  # a tombstone: its words go
    sessions.redact(
        "cli:a", [1], change=lambda _: Message(role="assistant", content="redacted east side")
    )
    assert _agrees(tenant)[1] == 5

    with tenant.transaction() as conn:  # the dream cursor past every entry, so trim drops
        conn.execute(
            "UPDATE workspace_state SET dream_cursor = last_cursor WHERE workspace_id = %s",
            (tenant.id,),
        )
    assert history.trim(keep=1).dropped == 1
    assert sessions.delete("cli:b")
    assert _agrees(tenant)[1] == 3

    index = PgIndex(tenant)
    assert [hit.message_index for hit in index.search("redacted")] == [1]
    assert [hit.cursor for hit in index.search("lighthouse")] == [3]
    assert index.search("Kyoto") == []
    assert index.search("harbour") == []  # the rewritten entry was trimmed, the message redacted


def test_many_writes_fold_the_counts_and_keep_them_exact(tenant: Tenant) -> None:
    history = PgHistoryLog(tenant)
    for n in range(150):
        history.append(f"entry number {n}")
    _, items = _agrees(tenant)
    assert items == 150
    with tenant.transaction() as conn:
        row = conn.execute(
            "SELECT count(*) FROM item_counts WHERE workspace_id = %s", (tenant.id,)
        ).fetchone()
    assert row is not None
    assert 1 <= int(str(row[0])) <= 65


def test_two_processes_writing_one_workspace_at_once_lose_no_count(pg_url: str) -> None:
    name = new_workspace(pg_url, "terms")
    workers = [
        subprocess.Popen(
            [sys.executable, str(WORKER), pg_url, name, *args],
            stdout=subprocess.PIPE,
            text=True,
        )
        for args in (("session", "120", "a", "cli:one"), ("append", "120", "b"))
    ]
    outputs = [worker.communicate(timeout=120)[0] for worker in workers]
    assert [worker.returncode for worker in workers] == [0, 0]
    assert [len(out.splitlines()) for out in outputs] == [120, 120]
    database = Database(pg_url)
    try:
        assert _agrees(database.tenant(name))[1] == 240
    finally:
        database.close()


def test_a_deleted_workspace_takes_its_word_rows_and_no_other(database: Database) -> None:
    kept, gone = (database.tenant(f"terms-{n}-{secrets.token_hex(4)}", create=True) for n in "kg")
    for tenant in (kept, gone):
        PgHistoryLog(tenant).append("shared words in both workspaces")
    before = _agrees(kept)
    assert database.drop(gone.name)
    assert _agrees(kept) == before
    with database.connection() as conn:  # the owner, outside every workspace
        conn.execute("SELECT set_config('reverie.workspace', %s, false)", (str(gone.id),))
        left = [
            conn.execute(
                f"SELECT count(*) FROM {table} WHERE workspace_id = %s", (gone.id,)
            ).fetchone()
            for table in ("history_terms", "message_terms", "item_counts")
        ]
        conn.execute("RESET reverie.workspace")
    assert left == [(0,), (0,), (0,)]


_PLAN = (
    "EXPLAIN SELECT k.doc FROM (SELECT 'harbour'::text AS lexeme) AS d CROSS JOIN LATERAL"
    " (SELECT t.doc FROM history_terms AS t JOIN history AS x"
    " ON x.workspace_id = t.workspace_id AND x.doc = t.doc"
    " WHERE t.workspace_id = %(ws)s AND t.lexeme = d.lexeme"
    " AND x.words @@ to_tsquery('simple', 'harbour') ORDER BY t.doc DESC LIMIT 7) AS k"
)


def test_a_match_walks_the_word_btree_for_the_servers_role(tenant: Tenant) -> None:
    """The servers' role is no superuser and row-level security binds it (``local_cluster``)."""
    history = PgHistoryLog(tenant)
    history.append_many([NewEntry(text=f"note {n} about the garden") for n in range(3000)])
    history.append("the harbour at dawn")
    with tenant.transaction() as conn:
        role = conn.execute(
            "SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user"
        ).fetchone()
        conn.execute("ANALYZE history, history_terms")
        plan = "\n".join(str(r[0]) for r in conn.execute(_PLAN, {"ws": tenant.id}).fetchall())
    assert role == (False, False)
    assert "history_terms_pkey" in plan, plan
    assert "Seq Scan on history" not in plan, plan
    assert [hit.cursor for hit in PgIndex(tenant).search("harbour")] == [3001]


@pytest.mark.parametrize("words", ["garden", "note garden", "咖啡"])
def test_the_newest_matches_are_found_past_a_window_of_other_words(
    tenant: Tenant, words: str
) -> None:
    """A common word's matches are the newest ``WINDOW`` ones (none older), each a real match."""
    history = PgHistoryLog(tenant)
    history.append_many([NewEntry(text=f"note {n} about the garden 咖啡") for n in range(2500)])
    history.append("an entry of other words entirely")
    found = PgIndex(tenant).candidates(words.split(), limit=3000, context_weight=0)
    assert sorted(c.cursor for c in found if c.cursor) == list(range(2500 - WINDOW + 1, 2501))


@pytest.mark.parametrize(
    "term", ["garden", "note", "咖啡", "喝咖", "每天喝", "咖啡 and", "the garden", "absent", "7"]
)
def test_a_phrases_count_by_the_word_table_is_its_count_by_match(tenant: Tenant, term: str) -> None:
    """One-token phrases are counted off the btree, others item by item: both are exact."""
    history, sessions = PgHistoryLog(tenant), PgSessionStore(tenant)
    history.append_many([NewEntry(text=f"note {n} about the garden") for n in range(30)])
    history.append_many([NewEntry(text="我每天喝咖啡") for _ in range(4)])
    sessions.append_many(
        "cli:a", [Message(role="user", content=f"咖啡 and a note {n}") for n in range(5)]
    )
    phrase = tsearch.phrases([term])[0]
    with tenant.transaction() as conn:
        stats = ranking.corpus(conn, tenant.id, [phrase], ranking.Memo())
        row = conn.execute(
            "SELECT (SELECT count(*) FROM history WHERE workspace_id = %(ws)s AND words @@ q),"
            " (SELECT count(*) FROM messages WHERE workspace_id = %(ws)s AND words @@ q)"
            " FROM to_tsquery('simple', %(q)s) AS q",
            {"ws": tenant.id, "q": tsearch.phrase_query(phrase)},
        ).fetchone()
    assert row is not None
    held = [int(str(n)) for n in row]
    cap = stats.items // 2 + 1  # each table's count stops there (``ranking``)
    assert stats.holding == (sum(min(n, cap) for n in held),)
    rare = sum(held) <= 5
    assert PgIndex(tenant).rare_terms([term], at_most=5) == ([term] if rare else [])
