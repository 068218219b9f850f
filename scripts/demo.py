"""The main job until the CLI exists: one end-to-end pass over a temporary workspace.

create -> append history -> dream cursor -> edit a durable file -> commit (message from the
real diff) -> log -> restore the first commit (the dream cursor rolls back too) -> show.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from reverie import Workspace


def _say(text: str) -> None:
    sys.stdout.write(text + "\n")


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="reverie-demo-") as tmp:
        workspace = Workspace.open(Path(tmp) / "workspace", create=True)
        _say(f"workspace: {workspace.root}")
        facts = [
            "- [permanent] The user's name is Lin; she lives in Lyon.",
            "- [durable] Project atlas ships on 2026-12-15; Postgres chosen over MySQL.",
            "- [correction] The standup moved from 9:30 to 10:00 (not 9:30 any more).",
        ]
        for fact in facts:
            entry = workspace.history.append(fact, session_key="cli:demo")
            _say(f"appended cursor {entry.cursor}: {entry.content}")
        pending = workspace.history.read_since(workspace.dream_cursor.read())
        _say(f"pending for dream: {len(pending)} entries")

        workspace.files.write("USER", "# User\n\n- Name: Lin\n- Lives in Lyon\n")
        memory = "# Memory\n\n- atlas ships 2026-12-15\n- Postgres over MySQL\n- Standup 10:00\n"
        workspace.files.write("MEMORY", memory)
        workspace.dream_cursor.write(pending[-1].cursor)
        commit = workspace.audit.commit("dream: demo")
        if commit is None:
            raise SystemExit("expected a commit: the files changed")
        _say(f"\ncommitted {commit.short}: the message is built from the diff:\n")
        _say(workspace.audit.show(commit.sha).info.message)

        _say("log:")
        for info in workspace.audit.log(10):
            _say(f"  {info.short} {info.time:%Y-%m-%d %H:%M} {info.subject}")

        first = workspace.audit.log(10)[-1]
        restored = workspace.audit.restore(first.sha)
        _say(f"\nrestored {first.short} as new commit {restored.short}: {restored.subject}")
        _say(f"dream cursor after restore: {workspace.dream_cursor.read()}")
        _say(f"USER.md after restore:\n{workspace.files.read('USER')}")
        _say(f"history still holds {len(list(workspace.history.entries()))} entries")
        workspace.close()


if __name__ == "__main__":
    main()
