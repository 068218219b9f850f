"""``reverie principal`` and ``reverie token`` on a database home (``--store``, $REVERIE_STORE)."""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reverie.cli import app
from reverie.engine.facade import MemoryEngine
from reverie.engine.owners import DatabaseHome

pytestmark = pytest.mark.slow


def _run(*args: str, env: dict[str, str | None], expect: int = 0, stdin: str | None = None) -> str:
    result = CliRunner().invoke(app, list(args), env=env, input=stdin)
    assert result.exit_code == expect, result.output
    return result.stdout if expect == 0 else result.stderr


def test_principals_and_tokens_of_a_database_home(tmp_path: Path, pg_url: str) -> None:
    env: dict[str, str | None] = {k: None for k in os.environ if k.startswith("REVERIE_")}
    env |= {"HOME": str(tmp_path), "REVERIE_RECALL_EMBEDDINGS": "off"}
    alice = f"cli-alice-{secrets.token_hex(4)}"
    assert "added to" in _run("principal", "add", alice, "--store", pg_url, env=env)
    env["REVERIE_STORE"] = pg_url  # the database home without --store
    assert alice in json.loads(_run("principal", "list", "--json", env=env))["principals"]
    token = _run("token", "add", "--principal", alice, env=env).strip()
    home = DatabaseHome(pg_url)
    try:
        grant = home.tokens().check(token)
        assert grant is not None
        assert grant.principal == alice
        with home.open_engine(alice, create=False) as engine:
            engine.record("tg:x", [{"role": "user", "content": "My bike is teal."}])
    finally:
        home.close()
    document = json.loads(_run("principal", "export", alice, "--json", env=env))
    assert document["sessions"][0]["messages"][0]["content"] == "My bike is teal."
    _run("principal", "export", alice, "--to", str(tmp_path / "copy"), env=env)
    with MemoryEngine.open(tmp_path / "copy", create=False, environ={}, dense="off") as copy:
        assert copy.session("tg:x").messages[0].content == "My bike is teal."
    listed = json.loads(_run("token", "list", "--json", env=env))["tokens"]
    assert any(t["principal"] == alice for t in listed)
    said = _run("principal", "delete", alice, "--yes", env=env)
    assert "1 token(s)" in said
    assert alice not in json.loads(_run("principal", "list", "--json", env=env))["principals"]
    listed = json.loads(_run("token", "list", "--json", env=env))["tokens"]
    assert all(t["principal"] != alice for t in listed)
    # a folder home named explicitly wins over $REVERIE_STORE
    folder = tmp_path / "home"
    _run("principal", "add", "ann", "--home", str(folder), env=env)
    assert (folder / "ann" / "memory").is_dir()
