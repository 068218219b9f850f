"""The ``mcp`` and ``serve`` commands' own decisions, in process."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from reverie.cli import app
from reverie.cli import reach_commands as commands
from reverie.cli.failure import CommandFailedError
from reverie.config.sections import ModelConfig
from reverie.config.settings import Config
from reverie.engine.owners import FolderHome, SqliteTokenBook
from reverie.errors import DatabaseUnreachableError, InputError
from reverie.serve import served_home, token_book
from tests.cli.conftest import clean_env
from tests.reach.conftest import new_home


def test_reverie_mcp_ends_when_its_client_closes_stdin(tmp_path: Path) -> None:
    env = clean_env(tmp_path, tmp_path / "ws")
    result = CliRunner().invoke(app, ["mcp"], env=env, input="")
    assert result.exit_code == 0, result.output
    assert result.stdout == ""  # stdout belongs to the protocol
    assert (tmp_path / "ws" / "SOUL.md").exists()


def test_the_upstream_is_the_configured_openai_compatible_model() -> None:
    configured = Config(model=ModelConfig(model="m", base_url="http://127.0.0.1:1/v1"))
    upstream = commands._upstream(configured)
    assert upstream is not None
    assert (upstream.base_url, upstream.model) == ("http://127.0.0.1:1/v1", "m")
    assert commands._upstream(Config()) is None
    anthropic = Config(model=ModelConfig(model="claude", provider="anthropic"))
    with pytest.raises(CommandFailedError, match="OpenAI-compatible"):
        commands._upstream(anthropic)


def test_the_viewer_is_mounted_over_the_home(tmp_path: Path) -> None:
    parts = new_home(tmp_path)
    mounts = commands._mounts(parts.pool, parts.gate)
    assert len(mounts) == 1
    parts.pool.close()


def test_the_served_home_is_the_workspaces_parent_else_the_named_home(tmp_path: Path) -> None:
    env: dict[str, str] = {}
    served = served_home(tmp_path / "ws", environ=env)
    assert isinstance(served.home, FolderHome)
    assert (served.home.root, served.home.default) == (tmp_path, "ws")
    named = served_home(tmp_path / "ws", home=tmp_path / "people", environ=env)
    assert isinstance(named.home, FolderHome)
    assert (named.home.root, named.home.default) == (tmp_path / "people", "default")
    from_env = served_home(None, environ={"REVERIE_HOME": str(tmp_path / "h")})
    assert isinstance(from_env.home, FolderHome)
    assert from_env.home.root == tmp_path / "h"
    with pytest.raises(InputError, match="not a principal's folder name"):
        served_home(tmp_path / "My Memory", environ=env)
    database = served_home("team", store="postgresql://u@db.example/x", environ=env)
    assert database.home.default == "team"
    assert database.home.state_folder() is None
    with pytest.raises(DatabaseUnreachableError):  # its book is the database's tokens table
        token_book(database.home)
    book = token_book(served.home)
    assert isinstance(book, SqliteTokenBook)
    assert book.path == tmp_path / ".home" / "tokens.sqlite3"


def test_a_missing_sdk_names_the_extra() -> None:
    with pytest.raises(CommandFailedError, match=r"reverie\[serve\]"):
        commands._require("reverie_no_such_module")
