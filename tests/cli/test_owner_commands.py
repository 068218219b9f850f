"""``reverie principal`` and ``reverie token`` on a folder home, end to end in-process."""

from __future__ import annotations

import json
from pathlib import Path

from reverie.engine.facade import MemoryEngine
from reverie.engine.owners import FolderHome
from tests.cli.conftest import Cli


def test_principals_are_added_listed_and_found_in_the_default_home(cli: Cli) -> None:
    home = Path(cli.env["HOME"]) / ".reverie"
    assert "added to" in cli.run("principal", "add", "alice").stdout
    assert "already in" in cli.run("principal", "add", "alice").stdout
    cli.run("principal", "add", "lc:user1")
    assert cli.run("principal", "list").stdout.splitlines() == ["alice", "lc:user1"]
    listed = cli.json("principal", "list")
    assert listed == {"home": str(home), "default": "default", "principals": ["alice", "lc:user1"]}
    assert (home / "lc~3auser1" / "memory").is_dir()
    refused = cli.run("principal", "add", " padded", expect=1)
    assert "white space" in refused.stderr


def test_the_home_is_home_then_reverie_home_and_never_both_home_and_store(
    cli: Cli, tmp_path: Path
) -> None:
    cli.run("principal", "add", "ann", "--home", str(tmp_path / "a"))
    cli.env["REVERIE_HOME"] = str(tmp_path / "b")
    cli.run("principal", "add", "ben")
    assert cli.json("principal", "list", "--home", str(tmp_path / "a"))["principals"] == ["ann"]
    assert cli.json("principal", "list")["principals"] == ["ben"]
    both = cli.run("principal", "list", "--home", "x", "--store", "postgresql://h/d", expect=1)
    assert "not both" in both.stderr
    wrong = cli.run("principal", "list", "--store", "mysql://h/d", expect=1)
    assert "postgresql://" in wrong.stderr


def test_a_token_is_printed_once_listed_by_id_and_revoked(cli: Cli) -> None:
    made = cli.run("token", "add", "--principal", "alice", "--label", "phone")
    token = made.stdout.strip()
    assert token.startswith("rvp_")
    assert "shown once" in made.stderr
    cli.run("token", "add", "--app")
    listed = cli.json("token", "list")["tokens"]
    assert [(t["kind"], t["principal"], t["label"]) for t in listed] == [
        ("principal", "alice", "phone"),
        ("app", None, ""),
    ]
    assert token not in json.dumps(listed)
    book = FolderHome(Path(cli.env["HOME"]) / ".reverie").tokens()
    assert book.check(token) is not None
    revoked = cli.run("token", "revoke", listed[0]["id"]).stdout
    assert "revoked" in revoked
    assert book.check(token) is None
    assert cli.json("token", "list")["tokens"][0]["revoked"] is not None
    assert "one of" in cli.run("token", "add", "--app", "--admin", expect=1).stderr
    assert "one of" in cli.run("token", "add", expect=1).stderr
    assert "no token" in cli.run("token", "revoke", "000000000000", expect=1).stderr


def test_delete_asks_first_and_purges_the_workspace_and_its_tokens(cli: Cli) -> None:
    home = Path(cli.env["HOME"]) / ".reverie"
    cli.run("principal", "add", "alice")
    cli.run("token", "add", "--principal", "alice")
    kept = cli.run("principal", "delete", "alice", stdin="n\n")  # a "no" is not an error
    assert "nothing was deleted" in kept.stderr
    assert "error" not in kept.stderr.lower()
    assert (home / "alice").is_dir()
    done = cli.run("principal", "delete", "alice", stdin="y\n")
    assert "1 token(s)" in done.stdout
    assert not (home / "alice").exists()
    assert cli.json("token", "list")["tokens"] == []
    cli.run("principal", "add", "bob")
    cli.run("principal", "delete", "bob", "--yes")
    assert cli.json("principal", "list")["principals"] == []
    assert "no principal 'bob'" in cli.run("principal", "delete", "bob", "-y", expect=1).stderr


def test_export_writes_a_new_workspace_folder_or_json(cli: Cli, tmp_path: Path) -> None:
    home = Path(cli.env["HOME"]) / ".reverie"
    cli.run("principal", "add", "alice")
    with MemoryEngine.open(home / "alice", environ={}, dense="off") as engine:
        engine.record("tg:x", [{"role": "user", "content": "My bike is teal."}])
    document = cli.json("principal", "export", "alice")
    assert document["principal"] == "alice"
    assert document["sessions"][0]["messages"][0]["content"] == "My bike is teal."
    cli.run("principal", "export", "alice", "--to", str(tmp_path / "copy"))
    with MemoryEngine.open(tmp_path / "copy", create=False, environ={}, dense="off") as copy:
        assert copy.session("tg:x").messages[0].content == "My bike is teal."
    assert "one of them" in cli.run("principal", "export", "alice", expect=1).stderr
    missing = cli.run("principal", "export", "nobody", "--json", expect=1)
    assert "no workspace" in missing.stderr
