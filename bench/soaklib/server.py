"""The soak's model endpoint: a real chat-completions server on 127.0.0.1 that injects faults.

``SoakModel`` answers every POST with ``Replier.answer`` (see ``replies``), counts requests by
job and faults by kind, and can be switched to fault-free answers (``faults = False``) for the
supervisor's final recovery run. Only loopback; delayed answers end early when it closes.
"""

from __future__ import annotations

import json
import random
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self, cast

from reverie.core.messages import JSONObject
from reverie.llm.tokens import default_counter
from soaklib.replies import Replier
from soaklib.wire import Answer


class SoakModel:
    """A threaded loopback server making up replies and faults (see the module docstring)."""

    def __init__(
        self,
        *,
        seed: int,
        fault_rate: float,
        timeout_delay: float,
        hostile_paths: tuple[str, ...],
    ) -> None:
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._replier = Replier(
            rng=random.Random(seed),
            counter=default_counter(),
            fault_rate=fault_rate,
            timeout_delay=timeout_delay,
            hostile_paths=hostile_paths,
        )
        self._fault_rate = fault_rate
        self.requests: Counter[str] = Counter()
        self.faults: Counter[str] = Counter()
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def set_faults(self, *, enabled: bool) -> None:
        """Turn fault injection on (at the configured rate) or off."""
        with self._lock:
            self._replier.fault_rate = self._fault_rate if enabled else 0.0

    def respond(self, raw: bytes) -> Answer:
        """The answer to one request body (a body that is not JSON gets a 400)."""
        try:
            body = json.loads(raw)
        except ValueError:
            return Answer(status=400, body=b'{"error": {"message": "not JSON"}}')
        if not isinstance(body, dict):
            return Answer(status=400, body=b'{"error": {"message": "not an object"}}')
        with self._lock:
            job, answer = self._replier.answer(cast("JSONObject", body))
            self.requests[job] += 1
            if answer.fault is not None:
                self.faults[answer.fault] += 1
        return answer

    def wait(self, seconds: float) -> None:
        """Sleep up to ``seconds``, ending early when the server closes."""
        self._closing.wait(seconds)

    def close(self) -> None:
        """Stop serving and release the port."""
        self._closing.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64
    owner: SoakModel

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that timed out (or was SIGKILLed) hangs up before the answer: expected.
        pass


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        owner = self.server.owner
        answer = owner.respond(self.rfile.read(length))
        if answer.delay:
            owner.wait(answer.delay)
        self.send_response(answer.status)
        for name, value in answer.headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(answer.body)))
        self.end_headers()
        self.wfile.write(answer.body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (stdlib signature)
        pass
