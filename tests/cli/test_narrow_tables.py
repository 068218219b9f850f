"""On an 80-column terminal, a session key shown in a table is whole, on one line, copyable."""

from __future__ import annotations

from reverie.engine import MemoryEngine
from reverie.messages import Message
from tests.cli.conftest import Cli

KEY = "telegram:group:-1001234567890:thread:42:user:ada.lovelace"


def test_long_session_keys_stay_whole_at_80_columns(cli: Cli) -> None:
    cli.run("init")
    with MemoryEngine.open(cli.workspace, environ={}) as memory:
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
