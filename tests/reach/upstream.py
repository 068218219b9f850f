"""The scaffolding of a hand-written model endpoint on 127.0.0.1, for the reach tests.

``Upstream`` starts a threaded HTTP server on an ephemeral loopback port with the given
request handler, gives the handler its owner (``self.server.owner``), and says its
OpenAI-style ``base_url``. The servers that misbehave on purpose (``dying.DyingServer``,
``slow_stream.SlowStreamServer``) are this plus their handler.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Upstream:
    """A loopback HTTP server running ``handler`` on a daemon thread until ``close``."""

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.owner = self  # type: ignore[attr-defined]
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
