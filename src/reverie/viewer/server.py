"""Serve the viewer alone on uvicorn, in a background thread, on a loopback port.

``serve_viewer`` is for tests, screenshots and trying the viewer before ``reverie serve``
mounts it: it binds ``127.0.0.1`` (a free port unless one is given), starts uvicorn in a
daemon thread, waits until it answers, and stops it when the ``with`` block ends. A
non-loopback host is refused unless ``allow_remote`` says otherwise: the viewer shows and
changes memory, so it stays on the machine by default.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import uvicorn

from reverie.engine.facade import MemoryEngine
from reverie.viewer.app import create_viewer
from reverie.viewer.layout import ProvenanceHook

STARTUP_SECONDS = 10.0


@dataclass(frozen=True, slots=True, kw_only=True)
class RunningViewer:
    """A viewer being served: where it is, and the link that logs a person in."""

    host: str
    port: int
    token: str

    @property
    def url(self) -> str:
        """The viewer's address, without the token."""
        return f"http://{self.host}:{self.port}"

    @property
    def login_url(self) -> str:
        """The address with the token: opening it sets the session cookie."""
        return f"{self.url}/?token={self.token}"


@contextmanager
def serve_viewer(
    engine: MemoryEngine,
    token: str,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    author: str | None = None,
    provenance: ProvenanceHook | None = None,
    allow_remote: bool = False,
) -> Iterator[RunningViewer]:
    """Serve ``create_viewer(engine, token)`` until the block ends.

    Raises:
        ValueError: ``host`` is not a loopback address and ``allow_remote`` is false.
        RuntimeError: the server did not start within ``STARTUP_SECONDS``.
    """
    if not allow_remote and not _is_loopback(host):
        raise ValueError(f"refusing to serve the viewer on {host!r}: not a loopback address")
    app = create_viewer(
        engine,
        token,
        author=author,
        provenance=provenance,
        allowed_hosts=None if not allow_remote else ("*",),
    )
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((host, port))
    bound = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while not server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError("the viewer's server did not start")
            time.sleep(0.02)
        yield RunningViewer(host=host, port=bound, token=token)
    finally:
        server.should_exit = True
        thread.join(timeout=STARTUP_SECONDS)
        sock.close()


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
