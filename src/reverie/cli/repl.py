"""The chat REPL: read a line, answer it with the built-in agent, or run a slash command.

Slash commands: ``/dream`` (curate now), ``/compact`` (compact this session's pending turns),
``/status``, ``/new [KEY]`` (start another session), ``/help``, ``/quit`` (also ``/exit``,
Ctrl-D). Ctrl-C at the prompt only reminds how to leave; during a turn it abandons the wait.

A failed model call or any other expected error is one line, and the conversation goes on.
The session the REPL is in counts as busy, so background idle compaction leaves it alone.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import UTC

from rich.markdown import Markdown
from rich.text import Text

from reverie.cli.failure import describe
from reverie.cli.memory_views import dream_line, maintenance_lines
from reverie.cli.record_views import compaction_line
from reverie.cli.render import err, notice, out
from reverie.cli.status_view import print_status
from reverie.engine.facade import MemoryEngine
from reverie.engine.maintenance import MaintenancePass
from reverie.errors import ReverieError

PROMPT = "you> "
HELP = (
    "/dream  curate memory now    /compact  compact this session's turns    /status\n"
    "/new [KEY]  start a new session    /help    /quit (or Ctrl-D)"
)


class Repl:
    """One interactive conversation over an open engine."""

    def __init__(self, engine: MemoryEngine, *, session: str) -> None:
        self._engine = engine
        self.session = session
        self._commands: dict[str, Callable[[str], bool]] = {
            "/dream": self._dream,
            "/compact": self._compact,
            "/status": self._status,
            "/new": self._new,
            "/help": self._help,
            "/quit": self._quit,
            "/exit": self._quit,
        }

    def busy_sessions(self) -> list[str]:
        """The sessions background work must leave alone: the one this REPL is in."""
        return [self.session]

    def background_report(self, done: MaintenancePass) -> None:
        """Show what a background pass did (``reverie.engine.maintenance``), if anything."""
        for line in maintenance_lines(done):
            err().print(Text("[background] ", style="dim") + line, soft_wrap=True)

    def run(self) -> None:
        """Read and answer lines until /quit or end of input."""
        if sys.stdin.isatty():
            import readline  # noqa: F401 (line editing and history for input())
        mode = self._engine.mode
        out().print(
            Text(f"reverie chat: session {self.session}, memory {mode}. /help lists commands.")
        )
        while True:
            try:
                line = out().input(PROMPT).strip()
            except EOFError:
                break
            except KeyboardInterrupt:
                notice("\n(/quit or Ctrl-D to leave)")
                continue
            if line and not self.handle(line):
                break

    def handle(self, line: str) -> bool:
        """Answer one line; return False when the REPL should stop."""
        if not line.startswith("/"):
            self._say(line)
            return True
        name, _, argument = line.partition(" ")
        command = self._commands.get(name.lower())
        if command is None:
            notice(f"unknown command {name}; /help lists them", style="yellow")
            return True
        try:
            return command(argument.strip())
        except ReverieError as exc:
            notice(f"error: {describe(exc)}", style="bold red")
            return True

    def _say(self, text: str) -> None:
        try:
            with err().status("thinking…"):
                result = self._engine.turn(self.session, text)
        except ReverieError as exc:
            notice(f"error: {describe(exc)}", style="bold red")
            return
        except KeyboardInterrupt:
            notice("(interrupted)")
            return
        for compaction in result.compactions:
            notice(str(compaction_line(self.session, compaction)))
        out().print(Markdown(result.reply or "(no answer)"))

    def _dream(self, _argument: str) -> bool:
        with err().status(f"dreaming ({self._engine.mode})…"):
            result = self._engine.dream()
        out().print(dream_line(result), soft_wrap=True)
        return True

    def _compact(self, _argument: str) -> bool:
        with err().status("compacting…"):
            result = self._engine.compact(self.session)
        out().print(compaction_line(self.session, result), soft_wrap=True)
        return True

    def _status(self, _argument: str) -> bool:
        print_status(self._engine.status())
        return True

    def _new(self, argument: str) -> bool:
        stamp = self._engine.clock().astimezone(UTC).strftime("%Y%m%d-%H%M%S")
        self.session = argument or f"cli:{stamp}"
        out().print(f"new session {self.session}")
        return True

    def _help(self, _argument: str) -> bool:
        out().print(HELP, highlight=False)
        return True

    def _quit(self, _argument: str) -> bool:
        return False
