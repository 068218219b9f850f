"""``reverie why`` and ``reverie forget``: in-process for the paths, a terminal for the question."""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path

import pexpect
import pytest
from typer.testing import CliRunner, Result

from reverie.cli import app
from reverie.core.messages import Message
from reverie.engine.facade import MemoryEngine
from tests.cli.conftest import Cli


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str | None]:
    cleared: dict[str, str | None] = {k: None for k in os.environ if k.startswith("REVERIE_")}
    workspace = str(tmp_path / "ws")
    return {**cleared, "HOME": str(tmp_path), "REVERIE_WORKSPACE": workspace, "COLUMNS": "200"}


def _run(args: list[str], env: Mapping[str, str | None]) -> Result:
    return CliRunner().invoke(app, args, env=env, catch_exceptions=False)


def _seed(workspace: Path) -> None:
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


def test_why_prints_the_line_its_entry_and_the_message_said(
    tmp_path: Path, env: dict[str, str | None]
) -> None:
    _seed(tmp_path / "ws")
    result = _run(["why", "Riga"], env)
    assert result.exit_code == 0, result.output
    assert "Riga" in result.stdout
    assert "entry #1" in result.stdout
    assert "tg:zoe#0" in result.stdout
    assert "user: My name is Zoe and I live in Riga." in result.stdout
    document = json.loads(_run(["why", "Riga", "--json"], env).stdout)
    assert document["lines"][0]["origin"] == "dream"
    assert document["lines"][0]["entries"][0]["messages"][0]["index"] == 0


def test_why_says_when_a_person_wrote_the_line_or_nothing_matches(
    tmp_path: Path, env: dict[str, str | None]
) -> None:
    _seed(tmp_path / "ws")
    with (tmp_path / "ws" / "USER.md").open("a", encoding="utf-8") as handle:
        handle.write("- Prefers tea\n")
    assert "edited by hand" in _run(["why", "tea"], env).stdout
    nothing = _run(["why", "Reykjavik"], env)
    assert nothing.exit_code == 0
    assert "no durable line matches" in nothing.stderr


def test_forget_without_a_terminal_or_yes_refuses_and_changes_nothing(
    tmp_path: Path, env: dict[str, str | None]
) -> None:
    _seed(tmp_path / "ws")
    result = _run(["forget", "Riga"], env)
    assert result.exit_code == 1
    assert "pass --yes" in result.stderr
    assert "Riga" in (tmp_path / "ws" / "USER.md").read_text(encoding="utf-8")


def test_forget_yes_json_reports_what_went(tmp_path: Path, env: dict[str, str | None]) -> None:
    _seed(tmp_path / "ws")
    document = json.loads(_run(["forget", "Riga", "--yes", "--json"], env).stdout)
    assert [line["file"] for line in document["lines"]] == ["USER.md"]
    assert [entry["cursor"] for entry in document["entries"]] == [1]
    assert document["commit"]
    assert document["purge"] is None
    assert "Riga" not in (tmp_path / "ws" / "USER.md").read_text(encoding="utf-8")
    again = _run(["forget", "Riga"], env)
    assert again.exit_code == 0
    assert "nothing to forget" in again.stderr


def test_forget_purge_yes_says_no_trace_is_left(tmp_path: Path, env: dict[str, str | None]) -> None:
    _seed(tmp_path / "ws")
    result = _run(["forget", "Riga", "--yes", "--purge"], env)
    assert result.exit_code == 0, result.output
    assert "no trace is left" in result.stdout


def test_forget_in_a_terminal_lists_everything_and_asks_first(cli: Cli) -> None:
    _seed(cli.workspace)
    child = pexpect.spawn(
        sys.executable,
        ["-m", "reverie", "forget", "Riga"],
        env={**cli.env, "NO_COLOR": "1", "TERM": "xterm"},
        encoding="utf-8",
        timeout=30,
        dimensions=(40, 200),
    )
    child.logfile_read = seen = io.StringIO()
    try:
        child.expect("removes 1 line")
        child.expect(r"line    USER.md:\d+")
        child.expect("message tg:zoe#0 user: My name is Zoe")
        child.expect(r"Forget all of this\? \[y/N\]")
        child.sendline("n")
        child.expect("nothing forgotten")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0  # a "no" is the person's answer, not an error
    assert "error" not in seen.getvalue().lower()
    assert "Riga" in (cli.workspace / "USER.md").read_text(encoding="utf-8")


def test_a_blank_or_one_letter_text_is_one_error_line(
    tmp_path: Path, env: dict[str, str | None]
) -> None:
    _seed(tmp_path / "ws")
    for args in (["why", " "], ["forget", "a", "--yes"]):
        result = _run(args, env)
        assert result.exit_code == 1
        assert result.stderr.startswith("error: ")
        assert "Traceback" not in result.output
