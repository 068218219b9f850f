"""``reverie chat`` driven in a real pseudo-terminal, as a person would type into it.

One process walks the whole session and ends it with end of input (Ctrl-D), the way out that
depends on the terminal; ``/quit`` is the same command handler, read until in-process by
``test_repl_background.test_run_reads_until_quit_or_end_of_input``.
"""

from __future__ import annotations

import json
import sys

import pexpect
import pytest

from tests.cli.conftest import Cli
from tests.llm.loopback import LoopbackServer, chat_text, chat_tool_calls

PROMPT = "you> "


def _spawn(cli: Cli) -> pexpect.spawn[str]:
    env = {**cli.env, "NO_COLOR": "1", "TERM": "xterm"}
    return pexpect.spawn(
        sys.executable,
        ["-m", "reverie", "chat", "--session", "tg:dana"],
        env=env,
        encoding="utf-8",
        timeout=30,
        dimensions=(40, 200),
    )


def test_chat_in_a_terminal_talks_dreams_and_ends_on_end_of_input(
    cli: Cli, loopback: LoopbackServer
) -> None:
    cli.run("init")
    cli.configure(loopback, loopback)
    placeholder = (cli.workspace / "USER.md").read_text(encoding="utf-8").splitlines()[-1]
    edit = {"path": "USER.md", "old_text": placeholder, "new_text": "- Name: Dana (Oslo)"}
    loopback.script(
        chat_text("Hello Dana, noted: Oslo."),
        chat_text("- [permanent] The user is Dana and lives in Oslo"),
        chat_tool_calls([("c1", "edit_file", json.dumps(edit))]),
        chat_text("USER.md updated."),
    )
    child = _spawn(cli)
    try:
        child.expect("session tg:dana")
        child.expect_exact(PROMPT)
        child.sendline("My name is Dana and I live in Oslo.")
        child.expect("Hello Dana, noted: Oslo.")
        child.expect_exact(PROMPT)
        child.sendline("/status")
        child.expect(r"model \(chat chat-model; compaction memory-model; dream memory-model\)")
        child.expect_exact(PROMPT)
        child.sendline("/compact")
        child.expect(r"tg:dana: summarised")
        child.expect_exact(PROMPT)
        child.sendline("/dream")
        child.expect(r"dream completed \(model, trigger manual\)")
        child.expect("changed USER.md")
        child.expect_exact(PROMPT)
        child.sendline("/nonsense")
        child.expect("unknown command /nonsense")
        child.expect_exact(PROMPT)
        child.sendline("/new tg:erin")
        child.expect("new session tg:erin")
        child.expect_exact(PROMPT)
        _end_input(child)
    finally:
        child.close()
    assert child.exitstatus == 0, child.before
    assert loopback.pending() == 0
    assert len(loopback.requests) == 4, "the end of input made a model call"
    assert "Name: Dana" in (cli.workspace / "USER.md").read_text(encoding="utf-8")
    assert cli.json("log")[0]["subject"] == "dream: manual"
    sessions = {info["key"] for info in cli.json("sessions")}
    assert "tg:dana" in sessions


def _end_input(child: pexpect.spawn[str]) -> None:
    """Send end of input until the program ends; fail if it does not."""
    # readline may switch the terminal's mode (flushing pending input) just after the prompt
    # is printed, so an end-of-input sent that early can be lost: send it again until the
    # program ends (a second one after the first took effect reaches nothing).
    for _ in range(15):
        child.sendeof()
        if child.expect([pexpect.EOF, pexpect.TIMEOUT], timeout=2) == 0:
            return
    pytest.fail("chat did not end on end of input")
