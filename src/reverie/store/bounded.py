"""Reading a whole file with a bound, so that no path can make reverie read forever.

``read_bounded`` reads in chunks and stops past its cap: ``MAX_FILE_BYTES`` for a regular file
(checked against its size before reading), ``MAX_STREAM_BYTES`` for anything else (a FIFO, a
character device like ``/dev/zero``, a socket), whose size is unknown until it ends. Past the
cap it raises ``InputTooLargeError`` naming the path and the limit; nothing has been stored.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from reverie.errors import InputTooLargeError

MAX_FILE_BYTES = 1 << 30
"""Largest regular file read whole (1 GiB): an import source, a session file."""
MAX_STREAM_BYTES = 64 << 20
"""Most bytes read from a path that is not a regular file (64 MiB)."""
_CHUNK = 1 << 20


def read_bounded(path: Path) -> bytes:
    """Return the bytes at ``path``, refusing more than its cap.

    Raises:
        InputTooLargeError: the file (or stream) holds more than its cap.
        OSError: it cannot be opened or read (callers translate it).
    """
    with path.open("rb") as handle:
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
