"""The README's "Under your own agent" snippet, word for word, with the official openai client.

The snippet is read from README.md and run against the loopback model server; every message
it sends must be what a strict OpenAI-compatible endpoint accepts (no ``timestamp``, no
imported ``extra`` field), from the second turn on too.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.llm.loopback import LoopbackServer, chat_text

README = Path(__file__).resolve().parents[2] / "README.md"
ALLOWED = {"role", "content", "tool_calls", "tool_call_id", "name"}


def sdk_snippet() -> str:
    section = README.read_text(encoding="utf-8").split("## Under your own agent", 1)[1]
    found = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert found is not None, "the README's SDK section has no python snippet"
    return found.group(1)


def test_the_readme_sdk_snippet_sends_only_chat_completions_fields(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, loopback: LoopbackServer
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("OPENAI_BASE_URL", loopback.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    loopback.script(chat_text("Porto, noted."), chat_text("You live in Porto."))
    scope: dict[str, object] = {}
    exec(compile(sdk_snippet(), str(README), "exec"), scope)
    reply = scope["reply"]
    assert callable(reply)
    assert reply("tg:ada", "I moved to Porto.") == "Porto, noted."
    assert reply("tg:ada", "Where do I live?") == "You live in Porto."
    bodies = loopback.bodies()
    assert len(bodies) == 2
    for body in bodies:
        messages = body["messages"]
        assert isinstance(messages, list)
        for message in messages:
            assert isinstance(message, dict)
            assert set(message) <= ALLOWED, message
    memory = scope["memory"]
    close = getattr(memory, "close", None)
    assert callable(close)
    close()
