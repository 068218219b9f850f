"""A folder home: a principal exported whole, and deleted leaving no byte of it anywhere."""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest

from reverie.config.settings import Config
from reverie.engine.facade import MemoryEngine
from reverie.engine.owners import EnginePool, FolderHome, Openers, SqliteTokenBook, token_book
from reverie.engine.owners.export import export_document
from reverie.engine.owners.purge import delete_principal
from reverie.errors import InputError, PrincipalMissingError, WorkspaceMissingError
from tests.owners.planting import plant, unique_fact


def _home(tmp_path: Path) -> FolderHome:
    return FolderHome(tmp_path / "home", openers=Openers(config=Config(), environ={}, dense="off"))


def holding(root: Path, text: str) -> list[str]:
    """Every file under ``root`` whose bytes hold ``text``, as written or zlib-compressed (git)."""
    needle = text.encode()
    found = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            if needle in data or needle in _inflated(data):
                found.append(str(path.relative_to(root)))
    return found


def _inflated(data: bytes) -> bytes:
    try:
        return zlib.decompress(data)
    except zlib.error:
        return b""


def test_a_deleted_principal_leaves_no_byte_of_its_fact_under_the_home(tmp_path: Path) -> None:
    home = _home(tmp_path)
    pool = EnginePool(home, capacity=4)
    fact, kept = unique_fact(), unique_fact()
    with pool.lease("alice", create=True) as engine:
        plant(engine, fact)
        engine.dream()  # model-free: the dream's commit and provenance too
    with pool.lease("lc:bob", create=True) as engine:
        plant(engine, kept)
    book = token_book(home)
    book.issue("principal", principal="alice", label=f"{fact} phone")
    book.issue("principal", principal="lc:bob")
    with pool.lease("alice") as engine:  # open in the pool when the delete comes
        assert engine.search(fact)
    found = holding(home.root, fact)
    assert any(path.startswith("alice/.git/objects/") for path in found)
    for place in ("USER.md", "memory/history.jsonl", ".reverie/search.sqlite"):
        assert f"alice/{place}" in found  # planted where a purge must reach
    assert any(path.startswith("alice/.reverie/sessions.sqlite3") for path in found)
    assert ".home/tokens.sqlite3" in found  # the token's label

    done = delete_principal(home, "alice", pool=pool)

    assert done.tokens == 1
    assert "alice" not in pool.open_principals()
    assert holding(home.root, fact) == []
    assert holding(home.root, "alice") == []  # not even its name in the token book
    assert home.principals() == ["lc:bob"]
    with pool.lease("lc:bob") as engine:
        assert engine.search(kept)
    assert [g.principal for g in book.grants()] == ["lc:bob"]
    with pytest.raises(PrincipalMissingError, match="alice"):
        delete_principal(home, "alice", pool=pool)
    pool.close()


def test_a_principal_folder_that_is_a_link_is_refused(tmp_path: Path) -> None:
    home = _home(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    home.open_engine("carol", create=True).close()
    home.folder("carol").rename(elsewhere)
    home.folder("carol").symlink_to(elsewhere)
    with pytest.raises(InputError, match="is a link"):
        delete_principal(home, "carol")
    assert (elsewhere / "memory").is_dir()


def test_a_folder_principal_exports_whole_to_a_new_folder_and_as_json(tmp_path: Path) -> None:
    home = _home(tmp_path)
    fact = unique_fact()
    with home.open_engine("alice", create=True) as engine:
        plant(engine, fact)
        document = export_document(engine, "alice")
        log = [c.sha for c in engine.log()]
    target = tmp_path / "copy"
    home.export_folder("alice", target)
    assert (home.folder("alice") / ".reverie" / "locks").is_dir()
    assert not (target / ".reverie" / "locks").exists()  # the copy holds no one's lock
    with MemoryEngine.open(target, create=False, environ={}, dense="off") as copy:
        assert [c.sha for c in copy.log()] == log  # the audit history too
        assert any(fact in e.content for e in copy.history())
        assert copy.search(fact)
    assert document["principal"] == "alice"
    assert fact in str(document["history"])
    assert fact in str(document["sessions"])
    assert {"path": "USER.md", "text": f"# User\n\nLocker code: {fact}\n"} in (
        document["files"] if isinstance(document["files"], list) else []
    )
    with pytest.raises(InputError, match="not an empty folder"):
        home.export_folder("alice", target)
    with pytest.raises(WorkspaceMissingError):
        home.export_folder("nobody", tmp_path / "none")


def test_a_folder_homes_book_is_in_its_state_folder(tmp_path: Path) -> None:
    home = _home(tmp_path)
    book = token_book(home)
    assert isinstance(book, SqliteTokenBook)
    assert book.path == tmp_path / "home" / ".home" / "tokens.sqlite3"
