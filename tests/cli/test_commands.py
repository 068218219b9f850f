"""The commands in-process (typer's CliRunner): argument parsing, every table, the error
boundary. The subprocess tests show the same commands end to end; these are the fast ones."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Mapping
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner, Result

from reverie.cli import app
from reverie.cli.app import ReverieGroup
from reverie.core.messages import Message
from reverie.engine.facade import MemoryEngine
from reverie.errors import ModelConnectionError
from tests.cli.conftest import Cli

COMMANDS: tuple[str, ...] = ("init", "ask", "chat", "ingest", "history", "search", "sessions")
COMMANDS += ("status", "cost", "doctor", "dream", "compact", "log", "show", "restore", "why")
COMMANDS += ("forget", "store")


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str | None]:
    cleared: dict[str, str | None] = {k: None for k in os.environ if k.startswith("REVERIE_")}
    workspace = str(tmp_path / "ws")
    return {
        **cleared,
        "HOME": str(tmp_path),
        "REVERIE_WORKSPACE": workspace,
        "REVERIE_RECALL_EMBEDDINGS": "off",  # the suite's setting (tests/conftest.py)
        "COLUMNS": "200",
    }


def _run(args: list[str], env: Mapping[str, str | None]) -> Result:
    return CliRunner().invoke(app, args, env=env, catch_exceptions=False)


@pytest.fixture(scope="module")
def seeded_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workspace with one compacted, dreamt conversation, built once for the module."""
    workspace = tmp_path_factory.mktemp("seeded") / "ws"
    with MemoryEngine.open(workspace, environ={}, dense="off") as engine:
        engine.record(
            "tg:zoe",
            [
                Message(role="user", content="My name is Zoe and I live in Riga."),
                Message(role="assistant", content="Hello Zoe."),
            ],
        )
        engine.compact("tg:zoe")
        engine.dream()
    return workspace


@pytest.fixture
def seeded(tmp_path: Path, env: dict[str, str | None], seeded_template: Path) -> Path:
    """This test's own copy of the seeded workspace, at ``REVERIE_WORKSPACE``."""
    workspace = tmp_path / "ws"
    shutil.copytree(seeded_template, workspace, symlinks=True)
    return workspace


def test_help_lists_every_command(env: dict[str, str | None]) -> None:
    result = _run(["--help"], env)
    assert result.exit_code == 0
    for command in COMMANDS:
        assert command in result.stdout


def test_the_workspace_option_works_before_and_after_the_command(
    tmp_path: Path, env: dict[str, str | None], seeded: Path
) -> None:
    env["REVERIE_WORKSPACE"] = str(tmp_path / "elsewhere")
    for args in (["-w", str(seeded), "sessions"], ["sessions", "--workspace", str(seeded)]):
        result = _run(args, env)
        assert result.exit_code == 0, result.stderr
        assert "tg:zoe" in result.stdout


def test_bad_arguments_are_usage_errors(env: dict[str, str | None]) -> None:
    assert _run(["history", "--limit", "0"], env).exit_code == 2
    assert _run(["nope"], env).exit_code == 2


def test_every_read_command_prints_a_table(env: dict[str, str | None], seeded: Path) -> None:
    expected = {
        "history": "tg:zoe",
        "search": "Riga",
        "sessions": "tg:zoe",
        "status": "model-free memory",
        "cost": "dream",
        "doctor": "ok",
        "log": "dream: manual (model-free)",
    }
    for command, text in expected.items():
        args = [command, "Riga"] if command == "search" else [command]
        result = _run(args, env)
        assert result.exit_code == 0, (command, result.stderr)
        assert text in result.stdout, (command, result.stdout)
    shown = _run(["show", "HEAD"], env).stdout
    assert "mode   model-free" in shown
    assert "+++ b/" in shown


def test_empty_results_say_so(env: dict[str, str | None], seeded: Path) -> None:
    assert "no match" in _run(["search", "xylophone"], env).stderr
    assert "no history entry" in _run(["history", "--session", "nobody"], env).stderr
    assert "nothing to dream" in _run(["dream"], env).stdout


def test_json_outputs_parse(env: dict[str, str | None], seeded: Path) -> None:
    for args in (["history"], ["search", "Zoe"], ["sessions"], ["status"], ["cost"], ["log"]):
        assert json.loads(_run([*args, "--json"], env).stdout) is not None
    cost = json.loads(_run(["cost", "--json"], env).stdout)
    assert cost["by_day"][0]["job"] == "dream"


def test_fresh_workspace_tables(tmp_path: Path, env: dict[str, str | None]) -> None:
    assert _run(["init"], env).exit_code == 0
    assert "no session yet" in _run(["sessions"], env).stderr
    assert "no memory job has run yet" in _run(["cost"], env).stdout
    assert "never" in _run(["status"], env).stdout


def test_compact_and_restore_print_what_they_did(env: dict[str, str | None], seeded: Path) -> None:
    with MemoryEngine.open(seeded, environ={}, dense="off") as engine:
        engine.record("tg:zoe", [Message(role="user", content="I moved to Tartu in May.")])
    assert "tg:zoe:" in _run(["compact", "tg:zoe"], env).stdout
    assert "nothing to compact" in _run(["compact", "tg:zoe"], env).stdout
    assert "restore: " in _run(["restore", "HEAD~1"], env).stdout
    again = _run(["restore", "HEAD"], env).stdout  # the files already are as of HEAD
    assert "nothing to restore" in again
    assert "-> commit" not in again
    dry = _run(["dream", "--dry-run"], env)
    assert "dry run" in dry.stdout


def test_expected_errors_are_one_line_and_bugs_keep_their_traceback() -> None:
    probe = typer.Typer(cls=ReverieGroup)

    @probe.command()
    def expected() -> None:
        raise ModelConnectionError("cannot reach http://127.0.0.1:9/v1")

    @probe.command()
    def bug() -> None:
        raise RuntimeError("a bug")

    result = CliRunner().invoke(probe, ["expected"])
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1
    assert "REVERIE_BASE_URL" in result.stderr
    with pytest.raises(RuntimeError, match="a bug"):
        CliRunner().invoke(probe, ["bug"], catch_exceptions=False)


def test_version_and_verbose(env: dict[str, str | None], seeded: Path) -> None:
    assert _run(["--version"], env).stdout.startswith("reverie ")
    assert _run(["-v", "status"], env).exit_code == 0


def test_index_says_dense_recall_is_off_and_encodes_nothing(cli: Cli) -> None:
    cli.run("init")

    shown = cli.run("index").stdout
    data = cli.json("index")

    assert "encoded 0 items" in shown
    assert data == {"encoded": 0, "recall": "BM25 only (dense off: recall.embeddings is off)"}
