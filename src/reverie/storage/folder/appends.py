"""Appending bytes to a file: the one write loop and its one short-write policy.

``write_all`` writes every byte or raises: a short write (``os.write`` may write less than it
was given, e.g. on a full disk or an interrupted call) is retried with the rest until the data
is complete, and a write that makes no progress raises ``OSError``. Callers hold their file's
lock, so a retried rest cannot interleave with another writer's line. ``append_bytes`` opens a
file for appending (``O_APPEND``; creating it), writes all of ``data`` and closes it.

The history log, the session journal, the ledger, the quarantine and the rejected-rules log all
append through here. ``OSError`` is left to the caller, which translates it into a
``StorageError`` naming its file. No locking here.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

_APPEND = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC


def write_all(fd: int, data: bytes) -> int:
    """Write all of ``data`` to ``fd``, retrying short writes; return its length.

    Raises:
        OSError: the write failed, or wrote nothing at all.
    """
    written = os.write(fd, data)
    if written == len(data):  # the usual case: one write
        return written
    if written <= 0:
        raise OSError(errno.EIO, "the write made no progress")
    view = memoryview(data)[written:]
    while view:
        written = os.write(fd, view)
        if written <= 0:
            raise OSError(errno.EIO, "the write made no progress")
        view = view[written:]
    return len(data)


def append_bytes(path: Path, data: bytes, *, follow_links: bool = True, sync: bool = False) -> None:
    """Append ``data`` to ``path`` (created with mode 0644), all of it or ``OSError``.

    Args:
        path: the file.
        data: the bytes (whole lines).
        follow_links: False refuses a symlink at ``path`` (``OSError`` with ``ELOOP``).
        sync: fsync before closing (for records that must survive a power loss).
    """
    flags = _APPEND if follow_links else _APPEND | os.O_NOFOLLOW
    fd = os.open(path, flags, 0o644)
    try:
        write_all(fd, data)
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)
