"""Reading a whole file with a bound, so that no path can make reverie read forever.

``read_bounded`` reads in chunks and stops past its cap: ``MAX_FILE_BYTES`` for a regular file
(checked against its size before reading), ``MAX_STREAM_BYTES`` for anything else (a FIFO, a
character device like ``/dev/zero``, a socket), whose size is unknown until it ends. Past the
cap it raises ``InputTooLargeError`` naming the path and the limit; nothing has been stored.

A FIFO is opened without blocking and read only once a program writes to it (or closes it):
a FIFO no program writes to within ``FIFO_WAIT`` seconds is refused (``TimeoutError``, an
``OSError`` callers translate) instead of waiting forever in ``open``.
"""

from __future__ import annotations

import errno
import os
import select
import stat
from pathlib import Path
from typing import BinaryIO

from reverie.errors import InputTooLargeError

MAX_FILE_BYTES = 1 << 30
"""Largest regular file read whole (1 GiB): an import source, a session file."""
MAX_STREAM_BYTES = 64 << 20
"""Most bytes read from a path that is not a regular file (64 MiB)."""
FIFO_WAIT = 10.0
"""Seconds to wait for the first byte (or the close) of a FIFO before refusing it."""
_CHUNK = 1 << 20


def read_bounded(path: Path, *, fifo_wait: float = FIFO_WAIT) -> bytes:
    """Return the bytes at ``path``, refusing more than its cap.

    Args:
        path: the file (or stream) to read.
        fifo_wait: seconds a FIFO may stay silent before it is refused.

    Raises:
        InputTooLargeError: the file (or stream) holds more than its cap.
        OSError: it cannot be opened or read, or it is a FIFO nothing writes to
            (``TimeoutError``); callers translate it.
    """
    with _open(path, fifo_wait) as handle:
        info = os.fstat(handle.fileno())
        regular = stat.S_ISREG(info.st_mode)
        cap = MAX_FILE_BYTES if regular else MAX_STREAM_BYTES
        what = "a file" if regular else "a stream (not a regular file)"
        if regular and info.st_size > cap:
            raise InputTooLargeError(f"{what} larger than {cap:,} bytes", path=path)
        chunks: list[bytes] = []
        total = 0
        while chunk := handle.read(_CHUNK):
            total += len(chunk)
            if total > cap:
                raise InputTooLargeError(f"{what} larger than {cap:,} bytes", path=path)
            chunks.append(chunk)
    return b"".join(chunks)


def _open(path: Path, fifo_wait: float) -> BinaryIO:
    """Open ``path`` to read; a FIFO only once a writer has written to it or closed it."""
    try:
        fifo = stat.S_ISFIFO(path.stat().st_mode)
    except OSError:
        fifo = False  # let open() say what is wrong
    if not fifo:
        return path.open("rb")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)  # never blocks
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        if not poller.poll(int(fifo_wait * 1000)):
            raise TimeoutError(
                errno.ETIMEDOUT, f"a FIFO no program wrote to within {fifo_wait:g} s"
            )
        os.set_blocking(fd, True)  # a writer is there: read until it closes
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")
