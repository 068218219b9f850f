"""reverie over the Model Context Protocol: memory tools and the durable files as resources.

A surface: every tool is one ``MemoryEngine`` operation (``tools``; their arguments and results
in ``schema``, their rows in ``table``), the durable files are resources with change events
(``resources``, ``server``), and nothing here holds memory logic.
``reverie mcp`` serves it over stdio; ``reverie serve`` over streamable HTTP at ``/mcp``. The
``mcp`` SDK is the ``serve`` extra and is imported only by these commands.
"""

from reverie.mcp.server import build_server, run_stdio

__all__ = ["build_server", "run_stdio"]
