"""The adapter examples under examples/ run as a user runs them, against the loopback model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.llm.loopback import LoopbackServer, chat_text

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _run(example: str, workspace: Path, loopback: LoopbackServer) -> str:
    loopback.script(chat_text("Hi Ada."), chat_text("You write Rust."))
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / example), str(workspace), loopback.base_url],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert loopback.unscripted == []
    return done.stdout


def _sent(loopback: LoopbackServer) -> list[dict[str, str]]:
    messages: list[dict[str, str]] = json.loads(loopback.requests[-1].body)["messages"]
    return messages


@pytest.mark.parametrize(
    ("example", "last_line"),
    [
        ("agents_sdk.py", "4 items in reverie session agents:example"),
        ("langchain_history.py", "4 messages in reverie session langchain:example"),
        ("pydantic_ai_agent.py", "4 messages in reverie session pydantic_ai:example"),
    ],
)
def test_the_example_runs_two_turns_in_one_remembered_session(
    example: str, last_line: str, tmp_path: Path, loopback: LoopbackServer
) -> None:
    printed = _run(example, tmp_path / "ws", loopback)
    assert "You write Rust." in printed
    assert printed.strip().splitlines()[-1] == last_line
    assert [m["content"] for m in _sent(loopback) if m["role"] == "user"] == [
        "My name is Ada and I write Rust.",
        "What do I write?",
    ]


def test_the_langgraph_example_finds_the_first_turn_in_the_store(
    tmp_path: Path, loopback: LoopbackServer
) -> None:
    printed = _run("langgraph_store.py", tmp_path / "ws", loopback)
    assert printed.strip().splitlines()[-1] == "2 items in namespace users/ada"
    system = _sent(loopback)[0]["content"]
    assert "- My name is Ada and I write Rust." in system
