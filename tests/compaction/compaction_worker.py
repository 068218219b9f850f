"""Subprocess worker: compacts one session of a workspace with a scripted summariser.

Usage: compaction_worker.py WORKSPACE KEY
"""

from __future__ import annotations

import itertools
import sys

from reverie import ChatReply, ChatRequest, ScriptedProvider
from reverie.storage.folder.workspace import Workspace
from tests.compaction.build import build


def _facts(request: ChatRequest) -> ChatReply:
    return ChatReply(text=f"- [durable] {len(request.messages[-1].text)} chars summarised")


def main() -> None:
    workspace = Workspace.open(sys.argv[1])
    compactor, _, _ = build(workspace, ScriptedProvider(*itertools.repeat(_facts, 50)))
    result = compactor.ensure_budget(sys.argv[2], user_text="next")
    sys.stdout.write(f"{result.outcome} {len(result.entries)}\n")


if __name__ == "__main__":
    main()
