"""Subprocess worker for the dream concurrency and crash tests.

Usage:
    dream_worker.py once WORKSPACE RELEASE   wait for "go" on stdin, run dream once; the model
                                             prints "in-model" and waits until RELEASE exists
    dream_worker.py loop WORKSPACE           forever: append an entry, dream it (three ~60 KB
                                             files rewritten per run), print the new cursor

Both print "ready" once imports are done; "once" prints the result as one JSON line. "loop"
also runs forked from a warm parent (``tests/forkserver.py``).
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
import time
from pathlib import Path

from reverie import ChatReply, ChatRequest, ScriptedProvider
from reverie.config.sections import DreamConfig
from reverie.core.messages import Message
from reverie.memory.dream.runner import Dreamer
from reverie.storage.folder.workspace import Workspace
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


class LengthCounter:
    """Tokens as a quarter of the characters: the offline estimator spends most of a run on
    this worker's 180 KB of tool-call arguments, and the unbounded budget never reads them."""

    def text(self, text: str) -> int:
        return len(text) // 4 + 1

    def message(self, message: Message) -> int:
        calls = sum(len(call.name) + len(call.arguments) for call in message.tool_calls)
        return (len(message.text) + calls) // 4 + 4


def _provider() -> ScriptedProvider:
    return ScriptedProvider(counter=LengthCounter()).respond(rewrite_all).reply("done")


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
        result = Dreamer(workspace, _provider(), config=UNBOUNDED, counter=LengthCounter()).run()
        assert result.outcome == "completed", result
        print(result.cursor_after, flush=True)


def warm() -> None:
    """Dream once in a scratch workspace, so children forked by ``tests/forkserver.py`` start
    warm."""
    with tempfile.TemporaryDirectory() as scratch:
        workspace = Workspace.open(Path(scratch) / "ws", create=True)
        workspace.history.append("warm")
        Dreamer(workspace, _provider(), config=UNBOUNDED, counter=LengthCounter()).run()
        workspace.close()


def main(argv: list[str] | None = None) -> None:
    """Run with ``argv`` (default: the command line), in a process of its own."""
    args = sys.argv[1:] if argv is None else argv
    if args[0] == "once":
        once(Path(args[1]), Path(args[2]))
    else:
        loop(Path(args[1]))


if __name__ == "__main__":
    main()
