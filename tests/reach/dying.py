"""A chat-completions endpoint on 127.0.0.1 that dies in the middle of every answer.

Each POST gets a 200 with ``Content-Length`` promising more than it sends: the first part of
``body`` is written, then the connection is closed, so the client's read fails the way it does
when a model server crashes mid-answer. ``calls`` counts the requests.
"""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.reach.upstream import Upstream


class DyingServer(Upstream):
    """Answers with the start of ``body`` (``content_type``), then hangs up."""

    def __init__(self, body: bytes, content_type: str) -> None:
        self.body = body
        self.content_type = content_type
        self.calls = 0
        super().__init__(_Handler)


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        owner: DyingServer = self.server.owner  # type: ignore[attr-defined]
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        owner.calls += 1
        self.send_response(200)
        self.send_header("Content-Type", owner.content_type)
        self.send_header("Content-Length", str(len(owner.body) + 4096))
        self.end_headers()
        self.wfile.write(owner.body)
        self.wfile.flush()
        self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (stdlib signature)
        pass
