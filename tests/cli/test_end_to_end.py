"""The CLI end to end, as a person uses it, against loopback model endpoints.

Commands run in-process (the ``cli`` fixture): each opens and closes its own engine, so what one
command leaves for the next is only what is on disk, as between processes. The README's
quickstart (``test_readme_flows``) walks the same path through real ``reverie`` processes.
"""

from __future__ import annotations

import json
from pathlib import Path

from reverie.core.messages import Message
from reverie.engine.facade import MemoryEngine
from tests.cli.conftest import Cli
from tests.llm.loopback import LoopbackServer, chat_text, chat_tool_calls

LONG = " Lots of words about the harbour project." * 30
SUMMARY = "- [permanent] The user is called Alice and lives in Lyon"


def _user_md_edit(cli: Cli) -> str:
    placeholder = (cli.workspace / "USER.md").read_text(encoding="utf-8").splitlines()[-1]
    arguments = {"path": "USER.md", "old_text": placeholder, "new_text": "- Name: Alice (Lyon)"}
    return json.dumps(arguments)


def _chat_until_compacted(cli: Cli, chat: LoopbackServer, memory: LoopbackServer) -> None:
    chat.script(*(chat_text(f"Noted {i}.") for i in range(5)))
    memory.script(*(chat_text(SUMMARY) for _ in range(10)))
    for i in range(4):
        answer = cli.run("ask", "--session", "tg:alice", f"Message {i}: I am Alice." + LONG)
        assert answer.stdout.strip() == f"Noted {i}."
    assert "Noted 4." in cli.run("ask", "-s", "tg:bob", "I am Bob; I play chess.").stdout
    assert memory.requests, "the small context window should have forced a compaction"


def test_multi_session_chat_compacts_dreams_commits_and_restores(
    cli: Cli, loopback: LoopbackServer
) -> None:
    cli.run("init")
    with LoopbackServer() as memory:
        cli.configure(loopback, memory, context_window=2400)
        _chat_until_compacted(cli, loopback, memory)
    entries = cli.json("history", "--session", "tg:alice")
    assert entries
    assert all(e["kind"] == "summary" and e["session_key"] == "tg:alice" for e in entries)
    assert "Alice" in entries[0]["content"]
    sessions = {info["key"]: info for info in cli.json("sessions")}
    assert {"tg:alice", "tg:bob"} <= set(sessions)
    assert sessions["tg:alice"]["compacted_upto"] > 0
    hits = cli.json("search", "Lyon")
    assert any(hit["kind"] == "history" and hit["cursor"] == entries[0]["cursor"] for hit in hits)

    with LoopbackServer() as dreamer:
        cli.configure(loopback, dreamer, context_window=2400)
        for _ in range(2):  # once for the dry run, once for real
            dreamer.script(
                chat_tool_calls([("c1", "edit_file", _user_md_edit(cli))]), chat_text("done")
            )
        dry = cli.json("dream", "--dry-run")
        assert dry["outcome"] == "completed"
        assert dry["dry_run"] is True
        assert "+- Name: Alice (Lyon)" in dry["diff"]
        assert "Alice" not in (cli.workspace / "USER.md").read_text(encoding="utf-8")
        done = cli.run("dream").stdout
        assert dreamer.pending() == 0
    assert "dream completed (model, trigger manual)" in done
    assert "changed USER.md" in done
    assert "Name: Alice" in (cli.workspace / "USER.md").read_text(encoding="utf-8")
    status = cli.json("status")
    assert status["mode"] == "model"
    assert status["pending_entries"] == 0
    assert status["dream_cursor"] == status["last_cursor"]
    assert {"compaction", "dream"} <= set(cli.json("cost")["by_job"])

    log = cli.json("log")
    assert log[0]["subject"] == "dream: manual"
    table = cli.run("log").stdout
    assert "dream: manual" in table
    assert " model " in table
    shown = cli.run("show", "HEAD").stdout
    assert "mode   model" in shown
    assert "+- Name: Alice (Lyon)" in shown

    restored = cli.json("restore", "HEAD~1")
    assert restored["subject"].startswith("restore: ")
    assert "Alice" not in (cli.workspace / "USER.md").read_text(encoding="utf-8")
    after = cli.json("status")
    assert after["dream_cursor"] == 0
    assert after["pending_entries"] == len(cli.json("history"))
    cli.run("doctor")


def _seed_model_free(workspace: Path) -> None:
    with MemoryEngine.open(workspace, environ={}, dense="off") as engine:
        engine.record(
            "tg:carol",
            [
                Message(role="user", content="My name is Carol and I live in Porto."),
                Message(role="assistant", content="Nice to meet you, Carol."),
            ],
        )


def test_model_free_compact_and_dream_say_so(cli: Cli) -> None:
    cli.run("init")
    _seed_model_free(cli.workspace)
    compacted = cli.json("compact", "tg:carol")
    assert compacted["outcome"] in ("summarised", "nothing_noteworthy")
    assert cli.run("compact", "tg:nobody", expect=1).stderr.count("\n") == 1
    status = cli.run("status").stdout
    assert "model-free" in status
    dreamed = cli.run("dream").stdout
    assert "model-free" in dreamed
    log = cli.json("log")
    assert log[0]["subject"] == "dream: manual (model-free)"
    assert "model-free" in cli.run("log").stdout
    assert "mode   model-free" in cli.run("show", log[0]["short"]).stdout
    ledger = (cli.workspace / "memory" / "ledger.jsonl").read_text(encoding="utf-8")
    assert '"model": "model-free"' in ledger


def test_every_json_output_parses(cli: Cli, loopback: LoopbackServer) -> None:
    cli.run("init")
    _seed_model_free(cli.workspace)
    cli.run("compact", "tg:carol")
    reads = [
        ["history"],
        ["history", "--since", "0", "--limit", "1", "--session", "tg:carol"],
        ["search", "Porto", "--session", "tg:carol", "--limit", "1"],
        ["sessions"],
        ["status"],
        ["cost"],
        ["doctor"],
        ["log", "-n", "5"],
        ["show", "HEAD"],
        ["dream"],
        ["restore", "HEAD~1"],
        ["compact", "tg:carol"],
    ]
    for args in reads:
        assert cli.json(*args) is not None, args
    status = cli.json("status")
    assert status["last_dream"]["last_attempt"].count("T") == 1  # ISO 8601
    cli.configure(loopback)
    loopback.script(chat_text("Hello Carol."))
    cli.env["REVERIE_MODEL"] = "chat-model"
    answer = cli.json("ask", "--session", "tg:carol", "hello")
    assert answer["reply"] == "Hello Carol."
    assert answer["session"] == "tg:carol"
