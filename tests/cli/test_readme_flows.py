"""The README's Quickstart, word for word, against the loopback model server.

A person runs ``reverie init``, exports ``REVERIE_MODEL`` / ``REVERIE_BASE_URL`` /
``REVERIE_API_KEY`` and talks: the commented ``reverie.toml`` that ``init`` wrote must change
nothing, so compaction and dream go through the model (the server sees the memory requests) and
``reverie status`` says so. In the first flow what the person types runs as real processes
(``reverie init``, then talking with the model from the exported environment); the checks
between them (status, compact, dream) run in-process on the same environment, as do the other
flows (a 4,096-token window with no other setting, an Ollama-style URL with no key): typer's
CliRunner walks the same code at a fraction of a process start and a model SDK import.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from reverie.cli import app
from reverie.core.messages import JSONObject
from tests.cli.conftest import Cli
from tests.llm.loopback import LoopbackServer, chat_text, chat_tool_calls

SUMMARY = "- [permanent] The user is called Alice and lives in Lyon"
LONG = " Lots of words about the harbour project and its moorings." * 40


def _system_text(body: JSONObject) -> str:
    messages = body["messages"]
    assert isinstance(messages, list)
    first = messages[0]
    assert isinstance(first, dict)
    return str(first.get("content"))


def _tool_names(body: JSONObject) -> set[str]:
    tools = body.get("tools") or []
    assert isinstance(tools, list)
    return {str(t["function"]["name"]) for t in tools if isinstance(t, dict)}  # type: ignore[index,call-overload]


def _compaction_requests(server: LoopbackServer) -> list[JSONObject]:
    return [b for b in server.bodies() if "You write the memory" in _system_text(b)]


def _dream_requests(server: LoopbackServer) -> list[JSONObject]:
    return [b for b in server.bodies() if "edit_file" in _tool_names(b)]


def _user_md_edit(workspace: Path) -> str:
    placeholder = (workspace / "USER.md").read_text(encoding="utf-8").splitlines()[-1]
    arguments = {"path": "USER.md", "old_text": placeholder, "new_text": "- Name: Alice (Lyon)"}
    return json.dumps(arguments)


@pytest.mark.slow  # two CLI processes, one calling the model
def test_quickstart_init_then_environment_runs_memory_through_the_model(
    cli_process: Cli, loopback: LoopbackServer
) -> None:
    cli = cli_process  # real processes for what the person types (init, then talking)
    for key in ("REVERIE_IDLE_MINUTES", "REVERIE_DREAM_INTERVAL_MINUTES", "REVERIE_API_KEY"):
        cli.env.pop(key)
    cli.run("init")
    assert "[memory_model]" in (cli.workspace / "reverie.toml").read_text(encoding="utf-8")
    cli.env.update(
        REVERIE_MODEL="gpt-4o-mini", REVERIE_BASE_URL=loopback.base_url, REVERIE_API_KEY="sk-t"
    )
    checks = Cli(workspace=cli.workspace, env=cli.env, in_process=True)
    status = checks.run("status").stdout
    assert "model (chat gpt-4o-mini; compaction gpt-4o-mini; dream gpt-4o-mini)" in status
    assert "model-free" not in status

    loopback.script(chat_text("Hello Alice."))
    assert cli.run("ask", "I am Alice and I live in Lyon.").stdout.strip() == "Hello Alice."
    cli = checks
    loopback.script(chat_text(SUMMARY))
    assert cli.json("compact", "cli:default")["outcome"] == "summarised"
    assert len(_compaction_requests(loopback)) == 1
    loopback.script(
        chat_tool_calls([("c1", "edit_file", _user_md_edit(cli.workspace))]), chat_text("done")
    )
    dreamt = cli.run("dream").stdout
    assert "dream completed (model, trigger manual): 1 entry, cursor 0 -> 1" in dreamt
    assert len(_dream_requests(loopback)) == 2
    assert loopback.pending() == 0
    assert not loopback.unscripted
    assert all(b["model"] == "gpt-4o-mini" for b in loopback.bodies())
    assert all(r.headers["authorization"] == "Bearer sk-t" for r in loopback.requests)
    assert "Name: Alice" in (cli.workspace / "USER.md").read_text(encoding="utf-8")
    assert set(cli.json("status")["jobs"].values()) == {"gpt-4o-mini"}


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str | None]:
    """No REVERIE_* of the caller, HOME in tmp_path, the workspace ``tmp_path/ws``."""
    cleared: dict[str, str | None] = {k: None for k in os.environ if k.startswith("REVERIE_")}
    workspace = str(tmp_path / "ws")
    return {**cleared, "HOME": str(tmp_path), "REVERIE_WORKSPACE": workspace, "COLUMNS": "200"}


def _run(args: list[str], env: Mapping[str, str | None]) -> Result:
    result = CliRunner().invoke(app, args, env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def test_ollama_style_url_with_no_key_and_a_4096_window_compacts_through_the_model(
    env: dict[str, str | None], loopback: LoopbackServer
) -> None:
    _run(["init"], env)
    env.update(
        REVERIE_BASE_URL=loopback.base_url,
        REVERIE_MODEL="llama3.1:8b",
        REVERIE_CONTEXT_WINDOW="4096",
        REVERIE_IDLE_MINUTES="0",
        REVERIE_DREAM_INTERVAL_MINUTES="0",
    )
    assert "compaction llama3.1:8b" in _run(["status"], env).stdout
    # One queue serves chat and compaction, whose order depends on the budget: every reply is
    # a valid summary and a fine answer.
    loopback.script(*(chat_text(SUMMARY) for _ in range(12)))
    for i in range(6):
        if _compaction_requests(loopback):
            break
        answer = _run(["ask", "-s", "tg:alice", f"Message {i}: I am Alice." + LONG], env)
        assert "Alice" in answer.stdout
    assert _compaction_requests(loopback), "a 4,096-token window must force a compaction"
    assert not loopback.unscripted
    for request in loopback.requests:
        assert request.headers.get("authorization", "Bearer no-key") == "Bearer no-key"
    assert all(int(str(b["max_tokens"])) <= 1024 for b in loopback.bodies())
    history = json.loads(_run(["history", "--json"], env).stdout)
    assert history
    assert history[0]["kind"] == "summary"
    assert "Alice" in history[0]["content"]


def test_memory_model_from_the_environment_is_named_in_status(
    env: dict[str, str | None], loopback: LoopbackServer
) -> None:
    _run(["init"], env)
    env.update(
        REVERIE_BASE_URL=loopback.base_url, REVERIE_MODEL="big", REVERIE_MEMORY_MODEL="small"
    )
    status = json.loads(_run(["status", "--json"], env).stdout)
    assert status["mode"] == "model"
    assert status["jobs"] == {"chat": "big", "compaction": "small", "dream": "small"}


def test_a_window_conflict_is_one_line_naming_both_values(env: dict[str, str | None]) -> None:
    _run(["init"], env)
    env.update(REVERIE_CONTEXT_WINDOW="4096", REVERIE_MAX_OUTPUT_TOKENS="4096")
    result = CliRunner().invoke(app, ["status"], env=env)
    assert result.exit_code == 1
    assert "context_window (4096)" in result.output
    assert "max_output_tokens (4096)" in result.output
