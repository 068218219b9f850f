"""Read views as a person sees them: whole keys at 80 columns, recall, one session printed."""

from __future__ import annotations

from reverie.core.messages import Message
from reverie.engine.facade import MemoryEngine
from tests.cli.conftest import Cli

KEY = "telegram:group:-1001234567890:thread:42:user:ada.lovelace"


def test_long_session_keys_stay_whole_at_80_columns(cli: Cli) -> None:
    cli.run("init")
    with MemoryEngine.open(cli.workspace, environ={}, dense="off") as memory:
        memory.record(
            KEY,
            [
                Message(role="user", content="I moved to Porto in March, near the harbour."),
                Message(role="assistant", content="Noted: you live in Porto now."),
            ],
        )
        assert memory.compact(KEY).outcome == "summarised"
    cli.env["COLUMNS"] = "80"
    for command in (["sessions"], ["history"], ["search", "harbour"]):
        shown = cli.run(*command).stdout
        assert any(KEY in line for line in shown.splitlines()), (command, shown)


def test_recall_and_session_print_what_a_prompt_would_carry(cli: Cli) -> None:
    cli.run("init")
    with MemoryEngine.open(cli.workspace, environ={}, dense="off") as memory:
        memory.record(
            "tg:ada",
            [
                Message(role="user", content="My storage locker is number 4817 at Dock Road."),
                Message(role="assistant", content="Noted."),
                Message(role="user", content="Also, the ferry leaves at nine."),
                Message(role="assistant", content="Got it."),
            ],
        )
        memory.compact("tg:ada")
    recalled = cli.run("recall", "where is my storage locker?", "--session", "tg:ada").stdout
    assert "4817" in recalled
    assert "Recalled" in recalled
    as_json = cli.json("recall", "where is my storage locker?", "-s", "tg:ada")
    assert any("4817" in item["text"] for item in as_json["items"])
    shown = cli.run("session", "tg:ada").stdout
    assert "#0" in shown
    assert "(compacted)" in shown
    assert "ferry leaves at nine" in shown
    assert cli.json("session", "tg:ada")["key"] == "tg:ada"
    assert "no session 'tg:nobody'" in cli.run("session", "tg:nobody", expect=1).stderr


def test_export_prints_the_selected_workspace_whole_as_json(cli: Cli) -> None:
    cli.run("init")
    with MemoryEngine.open(cli.workspace, environ={}, dense="off") as engine:
        engine.record("tg:x", [{"role": "user", "content": "My bike is teal."}])
    document = cli.json("export")
    assert document["format"] == "reverie.principal-export/1"
    assert document["principal"] == cli.workspace.name
    assert document["sessions"][0]["messages"][0]["content"] == "My bike is teal."
    assert {f["path"] for f in document["files"]} >= {"SOUL.md", "USER.md", "memory/MEMORY.md"}
    assert "--json" in cli.run("export", expect=1).stderr


def test_curation_marks_are_kept_in_history_but_never_shown(cli: Cli) -> None:
    cli.run("init")
    with MemoryEngine.open(cli.workspace, environ={}, dense="off") as memory:
        memory.record(
            "tg:ada",
            [
                Message(role="user", content="I moved to Porto in March, near the harbour."),
                Message(role="assistant", content="Noted: you live in Porto now."),
            ],
        )
        assert memory.compact("tg:ada").outcome == "summarised"
        stored = [entry.content for entry in memory.history()]
        memory.record("tg:ada", [Message(role="user", content="Which harbour was it?")])
        prompt = memory.prompt("tg:ada", "Which harbour was it?")
    assert any("[durable]" in text for text in stored), stored  # dream reads the marks
    shown = "\n".join(
        [
            cli.run("history").stdout,
            cli.run("search", "harbour").stdout,
            cli.run("search", "durable").stdout,
            cli.run("recall", "where is the harbour?", "--session", "tg:ada").stdout,
            *(str(m.content) for m in prompt.messages if m.role == "system"),
        ]
    )
    assert "harbour" in shown
    for mark in ("[durable]", "[ephemeral]", "[permanent]", "[skip]", "[correction]"):
        assert mark not in shown, mark


def test_status_says_where_each_model_setting_came_from(cli: Cli) -> None:
    cli.run("init")
    (cli.workspace / "reverie.toml").write_text(
        '[model]\ncontext_window = 8192\n[memory_model]\nmodel = "small-1"\n', encoding="utf-8"
    )
    cli.env["REVERIE_MODEL"] = "big-2"
    shown = " ".join(cli.run("status").stdout.split())
    assert "model.model from REVERIE_MODEL" in shown, shown
    assert "memory_model.model from reverie.toml" in shown, shown
    assert "model.context_window from reverie.toml" in shown, shown  # the README's local setup
    assert "this process's only" in shown
    sources = dict(map(tuple, cli.json("status")["sources"]))
    assert sources["model.model"] == "REVERIE_MODEL"
    assert sources["model.base_url"] == "default"
    del cli.env["REVERIE_MODEL"]  # another shell, without the variable
    elsewhere = " ".join(cli.run("status").stdout.split())
    assert "REVERIE_MODEL" not in elsewhere
    assert "memory_model.model from reverie.toml" in elsewhere
