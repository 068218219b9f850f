"""A database home: every principal's engine over ONE connection pool, tokens in a table."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from reverie.config.settings import Config
from reverie.engine.facade import MemoryEngine
from reverie.engine.owners import DatabaseHome, DatabaseTokenBook, Openers, token_book
from reverie.engine.owners.export import export_document
from reverie.errors import DatabaseError, InputError
from tests.owners.planting import plant, unique_fact

pytestmark = pytest.mark.slow


def _named(pg_url: str, name: str) -> str:
    """The URL with an application name, so pg_stat_activity tells this pool's connections."""
    return f"{pg_url}?application_name={name}"


def _connections(pg_url: str, name: str) -> int:
    with psycopg.connect(pg_url.replace("reverie_app@", "postgres@"), autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", (name,)
        ).fetchone()
    assert row is not None
    return int(str(row[0]))


@pytest.fixture
def home(pg_url: str) -> Iterator[DatabaseHome]:
    made = DatabaseHome(pg_url, openers=Openers(config=Config(), environ={}, dense="off"))
    yield made
    made.close()


def _principal(prefix: str = "p") -> str:
    return f"{prefix}-{secrets.token_hex(5)}"


def test_a_hundred_principals_engines_share_at_most_the_pools_connections(pg_url: str) -> None:
    app_name = f"home{secrets.token_hex(4)}"
    home = DatabaseHome(
        _named(pg_url, app_name),
        openers=Openers(config=Config(), environ={}, dense="off"),
        max_connections=4,
    )
    names = [_principal(f"h{index}") for index in range(100)]
    engines = [home.open_engine(name, create=True) for name in names]
    for name, engine in zip(names, engines, strict=True):
        engine.record("s", [{"role": "user", "content": f"I am {name}"}])
    assert _connections(pg_url, app_name) <= 4
    assert [e.sessions()[0].message_count for e in engines] == [1] * 100
    for engine in engines:
        engine.close()  # each close leaves the shared pool open for the others
    assert set(names) <= set(home.principals())
    with home.open_engine(names[0], create=False) as again:
        assert again.session("s").messages[0].content == f"I am {names[0]}"
    home.close()
    assert _connections(pg_url, app_name) == 0


def test_a_principal_is_made_on_first_use_and_refused_without_create(
    home: DatabaseHome,
) -> None:
    name = _principal()
    assert not home.exists(name)
    with pytest.raises(DatabaseError, match="no such workspace"):
        home.open_engine(name, create=False)
    home.open_engine(name, create=True).close()
    assert home.exists(name)
    assert name in home.principals()


def test_two_principals_of_one_pool_never_see_each_others_memory(home: DatabaseHome) -> None:
    fact = unique_fact()
    alice, bob = _principal("alice"), _principal("bob")
    with home.open_engine(alice, create=True) as engine:
        plant(engine, fact)
    with home.open_engine(bob, create=True) as engine:
        assert engine.search(fact) == []
        prompt = engine.prompt("s", f"what is {fact}?")
        assert fact not in "".join(str(m.content) for m in prompt.messages[:-1])


def test_the_token_book_is_a_table_of_digests(home: DatabaseHome, pg_url: str) -> None:
    book = token_book(home)
    assert isinstance(book, DatabaseTokenBook)
    owner = _principal()
    token = book.issue("principal", principal=owner, label="phone")
    grant = book.check(token)
    assert grant is not None
    assert (grant.kind, grant.principal, grant.label) == ("principal", owner, "phone")
    assert book.check(token + "x") is None
    with psycopg.connect(pg_url, autocommit=True) as conn:
        rows = conn.execute("SELECT t::text FROM tokens t").fetchall()
    assert rows
    assert all(token not in str(row[0]) for row in rows)
    other = DatabaseHome(pg_url)  # another server: its own pool, the same table
    try:
        assert other.tokens().check(token) is not None
        book.revoke(grant.id)
        assert other.tokens().check(token) is None
    finally:
        other.close()
    with pytest.raises(InputError, match="no token"):
        book.revoke("000000000000")


def test_revoking_and_forgetting_a_principals_tokens(home: DatabaseHome) -> None:
    book = home.tokens()
    owner = _principal()
    first = book.issue("principal", principal=owner)
    book.issue("principal", principal=owner)
    app = book.issue("app")
    assert book.revoke_principal(owner) == 2
    assert book.check(first) is None
    assert book.check(app) is not None
    assert book.forget_principal(owner) == 2
    assert all(g.principal != owner for g in book.grants())


def test_a_database_principal_exports_to_a_folder_and_as_json(
    home: DatabaseHome, tmp_path: Path
) -> None:
    fact = unique_fact()
    name = _principal()
    with home.open_engine(name, create=True) as engine:
        plant(engine, fact)
        document = export_document(engine, name)
    target = tmp_path / "exported"
    home.export_folder(name, target)
    with MemoryEngine.open(target, create=False, environ={}, dense="off") as copy:
        assert copy.location == str(target)
        assert any(fact in entry.content for entry in copy.history())
        assert fact in copy.read_memory("USER")
        assert [s.key for s in copy.sessions()] == ["tg:chat", "tg:later"]
    assert document["principal"] == name
    history = document["history"]
    assert isinstance(history, list)
    assert history
    assert all(isinstance(e, dict) and isinstance(e["cursor"], int) for e in history)
    sessions = document["sessions"]
    assert isinstance(sessions, list)
    chat = sessions[0]
    assert isinstance(chat, dict)
    assert chat["key"] == "tg:chat"
    messages = chat["messages"]
    assert isinstance(messages, list)
    assert [m["index"] for m in messages if isinstance(m, dict)] == [0, 1, 2, 3]
    assert fact in str(document["files"])
    with pytest.raises(InputError, match="not an empty folder"):
        home.export_folder(name, target)
