"""The token book: shown once, stored as a digest, revoked at once for every reader."""

from __future__ import annotations

from pathlib import Path

import pytest

from reverie.engine.owners import SqliteTokenBook
from reverie.errors import InputError


def test_a_token_is_stored_only_as_its_digest(tmp_path: Path) -> None:
    book = SqliteTokenBook(tmp_path / ".home" / "tokens.sqlite3")
    token = book.issue("principal", principal="alice", label="phone")
    assert token.startswith("rvp_")
    assert token.encode() not in (tmp_path / ".home" / "tokens.sqlite3").read_bytes()
    found = book.check(token)
    assert found is not None
    assert found.principal == "alice"
    assert found.label == "phone"
    assert book.check(token + "x") is None
    assert book.check("") is None


def test_a_revoked_token_stops_working_for_another_reader(tmp_path: Path) -> None:
    path = tmp_path / "tokens.sqlite3"
    token = SqliteTokenBook(path).issue("app")
    other = SqliteTokenBook(path)
    grant = other.check(token)
    assert grant is not None
    assert grant.kind == "app"
    SqliteTokenBook(path).revoke(grant.id)
    assert other.check(token) is None
    assert [g.revoked is not None for g in other.grants()] == [True]


def test_revoking_a_principal_revokes_all_its_tokens(tmp_path: Path) -> None:
    book = SqliteTokenBook(tmp_path / "tokens.sqlite3")
    first = book.issue("principal", principal="bob")
    second = book.issue("principal", principal="bob")
    kept = book.issue("principal", principal="carol")
    assert book.revoke_principal("bob") == 2
    assert book.check(first) is None
    assert book.check(second) is None
    assert book.check(kept) is not None


def test_bad_grants_are_refused(tmp_path: Path) -> None:
    book = SqliteTokenBook(tmp_path / "tokens.sqlite3")
    with pytest.raises(InputError, match="names its principal"):
        book.issue("principal")
    with pytest.raises(InputError, match="names no principal"):
        book.issue("app", principal="x")
    with pytest.raises(InputError, match="no token with id"):
        book.revoke("nope")


def test_forgetting_a_principal_leaves_none_of_its_bytes_in_the_book(tmp_path: Path) -> None:
    path = tmp_path / "tokens.sqlite3"
    book = SqliteTokenBook(path)
    reader = SqliteTokenBook(path)
    gone = book.issue("principal", principal="alice-quxbaz", label="label-of-alice-quxbaz")
    assert reader.check(gone) is not None
    kept = book.issue("principal", principal="bob")
    book.revoke_principal("alice-quxbaz")
    assert book.forget_principal("alice-quxbaz") == 1
    assert book.forget_principal("alice-quxbaz") == 0
    assert [g.principal for g in book.grants()] == ["bob"]
    assert book.check(kept) is not None
    for file in tmp_path.iterdir():  # the database, and its write-ahead log if one is left
        assert b"quxbaz" not in file.read_bytes(), file.name
