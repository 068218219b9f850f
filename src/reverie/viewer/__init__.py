"""The memory viewer: see, search, diff, edit and restore what the agent remembers.

A surface: server-rendered HTML over ``MemoryEngine``'s public operations, a stylesheet and a
few lines of script shipped in the package (no build step, no network). ``create_viewer``
returns a Starlette app that ``reverie serve`` mounts (over a home's principals: ``visitors``);
``serve_viewer`` serves it alone on a loopback port (tests, screenshots). Modules: ``app``
(routes, auth and CSRF checks, headers), ``visitors`` (who a token makes a person: one
principal, or an admin), ``guard`` (cookie sessions, CSRF, hosts), ``listing`` (the admin's
list of principals), ``markup`` (escaping HTML builder), ``layout`` (page frame), ``overview``,
``timeline``, ``changes`` (commit diff, restore, edit), ``reading`` (search, sessions),
``diffview``, ``chart``, ``server``.

It must not: show anything without the token's cookie, show one principal's memory (or name
another principal) to a session of another principal's token, render memory text as HTML,
change memory except through ``MemoryEngine.edit_file`` and ``MemoryEngine.restore`` (each one
audit commit), or load anything from a network.
"""

from reverie.viewer.app import create_viewer
from reverie.viewer.server import RunningViewer, serve_viewer
from reverie.viewer.visitors import HomeMemories, Memories, OneEngine, Visitor

__all__ = [
    "HomeMemories",
    "Memories",
    "OneEngine",
    "RunningViewer",
    "Visitor",
    "create_viewer",
    "serve_viewer",
]
