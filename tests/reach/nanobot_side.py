"""nanobot 0.3.5's side of tests/reach/test_nanobot_035.py: run by nanobot's own Python.

This file imports nanobot, never reverie: it runs in nanobot's virtual environment
(``.cache/bench/nanobot-venv``), whose pins conflict with reverie's. Two commands, each
printing one JSON object on stdout:

- ``workspace DIR``: nanobot's own writers make a workspace: ``MemoryStore.append_history``
  30 entries of which dream consumed the first 10 (``set_last_dream_cursor``), and one session
  through ``SessionManager`` with a summary checkpoint (its ``_hidden_history`` continuation
  turn and ``metadata._last_summary``), saved where nanobot saves it (under ``$HOME``).
- ``ask CONFIG TEXT...``: nanobot loads ``CONFIG`` (a ``config.json``) with its loader, builds
  its provider with its factory, and chats one turn per TEXT, resending the conversation each
  time as nanobot does.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

HISTORY = 30
CONSUMED = 10
SUMMARY = "User Mia plans a garden in Bergen; she wants raised beds."


def workspace(folder: Path) -> dict[str, Any]:
    from nanobot.agent.memory import MemoryStore
    from nanobot.session.manager import SessionManager

    folder.mkdir(parents=True, exist_ok=True)
    store = MemoryStore(folder)
    for number in range(HISTORY):
        store.append_history(f"Mia noted garden fact number {number}.", session_key="telegram:42")
    store.set_last_dream_cursor(CONSUMED)
    sessions = SessionManager(folder)
    session = sessions.get_or_create("telegram:42")
    session.add_message("user", "I am moving to Oslo in May.")
    session.add_message("assistant", "Noted: Oslo in May.")
    session.commit_summary_checkpoint(SUMMARY)
    session.add_message("user", "Raised beds, please.")
    session.add_message("assistant", "Raised beds it is.")
    sessions.save(session)
    return {"sessions_dir": str(sessions.sessions_dir), "dream_cursor": CONSUMED}


def ask(config_path: Path, texts: list[str]) -> dict[str, Any]:
    from nanobot.config.loader import load_config
    from nanobot.providers.factory import make_provider

    config = load_config(config_path)
    provider = make_provider(config)
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are nanobot."}]
    answers = []
    for text in texts:
        messages.append({"role": "user", "content": text})
        reply = asyncio.run(provider.chat(messages=messages, model=config.agents.defaults.model))
        answers.append(reply.content)
        messages.append({"role": "assistant", "content": reply.content})
    return {"answers": answers, "provider": type(provider).__name__}


def main(argv: list[str]) -> None:
    command, *rest = argv
    done = workspace(Path(rest[0])) if command == "workspace" else ask(Path(rest[0]), rest[1:])
    sys.stdout.write(json.dumps(done) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
