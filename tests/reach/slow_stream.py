"""A chat-completions endpoint on 127.0.0.1 whose first answer streams slowly.

The first request gets one chunk at once, then the rest only after ``release`` is set (or 5 s);
every later request gets a whole non-streamed answer. It records whether the first client
went away before the end, and when it has finished with the first request.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.reach.conftest import chunk
from tests.reach.upstream import Upstream


class SlowStreamServer(Upstream):
    """Serves the slow first stream, then quick answers."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.calls = 0
        self.first_cut_off = threading.Event()
        self.first_done = threading.Event()
        super().__init__(_Handler)

    def close(self) -> None:
        self.release.set()
        super().close()


def _event(obj: Any) -> bytes:
    return b"data: " + json.dumps(obj).encode() + b"\n\n"


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        owner: SlowStreamServer = self.server.owner  # type: ignore[attr-defined]
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        owner.calls += 1
        if owner.calls > 1:
            body = json.dumps(
                {
                    "id": "x",
                    "object": "chat.completion",
                    "created": 1,
                    "model": "chat-model",
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": "quick"},
                            "finish_reason": "stop",
                        }
                    ],
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        self.wfile.write(_event(chunk({"role": "assistant", "content": "partial "})))
        self.wfile.flush()
        owner.release.wait(5)
        try:
            for _ in range(10):  # more of the answer, for a proxy still listening
                self.wfile.write(_event(chunk({"content": "more "})))
                self.wfile.flush()
                owner.release.wait(0.02)
            self.wfile.write(_event(chunk({}, finish="stop")) + b"data: [DONE]\n\n")
            self.wfile.flush()
        except OSError:
            owner.first_cut_off.set()
        finally:
            owner.first_done.set()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (stdlib signature)
        pass
