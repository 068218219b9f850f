"""The memory viewer: see, search, diff, edit and restore what the agent remembers.

A surface: server-rendered HTML over ``MemoryEngine``'s public operations, a stylesheet and
a few lines of script shipped in the package (no build step, no network). ``create_viewer``
returns a Starlette app that ``reverie serve`` mounts; ``serve_viewer`` serves it alone on a
loopback port (tests, screenshots). Modules: ``app`` (routes, auth and CSRF checks,
headers), ``guard`` (token, cookie sessions, CSRF, hosts), ``markup`` (escaping HTML
builder), ``layout`` (page frame), ``overview``, ``timeline``, ``changes`` (commit diff,
restore, edit), ``reading`` (search, sessions), ``diffview``, ``chart``, ``server``.

It must not: show anything without the token's cookie, render memory text as HTML, change
memory except through ``MemoryEngine.edit_file`` and ``MemoryEngine.restore`` (each one audit
commit), or load anything from a network.
"""

from reverie.viewer.app import create_viewer
from reverie.viewer.server import RunningViewer, serve_viewer

__all__ = ["RunningViewer", "create_viewer", "serve_viewer"]
