"""The ``reverie`` command line: parse, call ``MemoryEngine``, format. No logic of its own.

Modules: ``app`` (global options, command list, the error boundary), ``context`` (opening the
engine for a command), ``session_commands`` (init, ask, chat), ``repl`` (the chat loop; its
idle compaction and dream run in ``reverie.engine.maintenance``), ``read_commands`` (history,
search, sessions, status, cost, doctor), ``memory_commands`` (dream, compact, log, show, restore),
``ingest_command``, ``reach_commands`` (mcp, serve), and the rendering helpers (``render``,
``memory_views``, ``record_views``, ``failure``).

Start-up: typer reads the annotations of every command at each start, so the modules that
define commands (``app``, ``ingest_command``, the ``*_commands`` modules) keep real annotations,
without ``from __future__ import annotations``: as strings, each of ~270 would be compiled and
evaluated on every start. Their few annotations that name a type imported only for type
checking are quoted. Everything a command alone needs is imported inside it.
"""

from reverie.cli.app import app, main

__all__ = ["app", "main"]
