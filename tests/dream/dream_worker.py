"""Subprocess worker for the dream concurrency and crash tests.

Usage:
    dream_worker.py once WORKSPACE RELEASE   wait for "go" on stdin, run dream once; the model
                                             prints "in-model" and waits until RELEASE exists
    dream_worker.py loop WORKSPACE           forever: append an entry, dream it (three ~60 KB
                                             files rewritten per run), print the new cursor

Both print "ready" once imports are done; "once" prints the result as one JSON line.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

from reverie import ChatReply, ChatRequest, ScriptedProvider, Workspace
from reverie.config import DreamConfig
from reverie.dream.runner import Dreamer
from reverie.token_estimate import EstimatingCounter
from tests.dream.scripting import write

PATHS = ("SOUL.md", "USER.md", "memory/MEMORY.md")
UNBOUNDED = DreamConfig(token_budget=10_000_000)


def content(path: str, generation: int) -> str:
    """The text of ``path`` at ``generation`` (the first line names both).

    The file is named by number: a new SOUL.md line naming a memory file would be screened.
    """
    head = f"file {PATHS.index(path)} generation {generation}\n"
    return head + f"{generation:08d} filler line\n" * 3_000


def once(root: Path, release: Path) -> None:
    def wait_for_release(_request: ChatRequest) -> ChatReply:
        print("in-model", flush=True)
        while not release.exists():
            time.sleep(0.01)
        return ChatReply(text="done")

    workspace = Workspace.open(root)
    dreamer = Dreamer(workspace, ScriptedProvider().respond(wait_for_release))
    print("ready", flush=True)
    sys.stdin.readline()
    result = dreamer.run(trigger="manual")
    print(json.dumps({"outcome": result.outcome, "cursor": result.cursor_after}), flush=True)


def rewrite_all(request: ChatRequest) -> ChatReply:
    """Write every durable file for the generation named by the last entry in the prompt."""
    generation = int(re.findall(r"^## entry (\d+) ", request.messages[1].text, re.M)[-1])
    calls = [write(path, content(path, generation)) for path in PATHS]
    return ChatReply(tool_calls=tuple(calls), finish_reason="tool_calls")


def loop(root: Path) -> None:
    workspace = Workspace.open(root)
    print("ready", flush=True)
    while True:
        workspace.history.append("next generation")
        provider = ScriptedProvider().respond(rewrite_all).reply("done")
        result = Dreamer(workspace, provider, config=UNBOUNDED, counter=EstimatingCounter()).run()
        assert result.outcome == "completed", result
        print(result.cursor_after, flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "once":
        once(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        loop(Path(sys.argv[2]))
