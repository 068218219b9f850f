"""File descriptors kept open between calls, for the small files the append path touches.

An append reads and rewrites ``memory/.cursor``; opening and closing it each time cost more
than the line's own write. ``KeptFile`` keeps one descriptor on a path and hands it out while
the path still names the file it opened (same device and inode, one ``stat``): a file replaced
by a rename (an atomic rewrite by this or another process, an editor's save) is opened again,
so nothing is ever read from or written to a file that left the path. A path that no longer
exists reads as absent.

Fork. A child must not use its parent's descriptors (they share one file offset and one open
file description with the parent): ``os.register_at_fork`` makes every ``KeptFile`` of a
child forget them (closing the child's copies) and re-create its thread lock, so the child
opens its own on first use. ``close`` closes the descriptor; the next use opens it again.
No locking across processes here: callers hold the file's lock where they need one.
"""

from __future__ import annotations

import contextlib
import os
import threading
import weakref
from pathlib import Path

_KEPT: weakref.WeakSet[KeptFile] = weakref.WeakSet()


class KeptFile:
    """One descriptor on ``path``, opened on first use with ``flags`` (see above)."""

    def __init__(self, path: Path, flags: int) -> None:
        self.path = path
        self._flags = flags | os.O_CLOEXEC
        self._fd: int | None = None
        self._identity = (-1, -1)
        self._guard = threading.Lock()
        _KEPT.add(self)

    def open(self, *, create: bool = False) -> tuple[int, int] | None:
        """A descriptor on the file the path names now and that file's size (None: absent).

        The descriptor stays this object's: use it under the caller's own lock and never close
        it. ``create`` makes the file (mode 0644) when it is absent.

        Raises:
            OSError: the path cannot be inspected or opened.
        """
        with self._guard:
            try:
                status = os.stat(self.path)  # noqa: PTH116 -- one syscall, no Path object
            except FileNotFoundError:
                if not create:
                    self._close_locked()
                    return None
            else:
                if self._fd is not None and (status.st_dev, status.st_ino) == self._identity:
                    return self._fd, status.st_size
            self._close_locked()
            flags = self._flags | os.O_CREAT if create else self._flags
            fd = os.open(self.path, flags, 0o644)
            status = os.fstat(fd)
            self._fd, self._identity = fd, (status.st_dev, status.st_ino)
            return fd, status.st_size

    @property
    def is_open(self) -> bool:
        """Whether a descriptor is kept now."""
        return self._fd is not None

    def holds(self, fd: int) -> bool:
        """Whether ``fd`` is the descriptor kept now (not one closed and replaced since)."""
        return fd == self._fd

    def close(self) -> None:
        """Close the descriptor, if one is kept (the next ``open`` opens the file again)."""
        with self._guard:
            self._close_locked()

    def _close_locked(self) -> None:
        fd, self._fd, self._identity = self._fd, None, (-1, -1)
        if fd is not None:
            os.close(fd)

    def __del__(self) -> None:
        # Best effort for an object dropped unclosed; ``close`` is the way.
        fd, self._fd = getattr(self, "_fd", None), None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)

    def _forget_after_fork(self) -> None:
        """In a forked child: drop the parent's descriptor and the (maybe held) thread lock."""
        self._guard = threading.Lock()
        fd, self._fd, self._identity = self._fd, None, (-1, -1)
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)  # the child's copy; the parent's stays open


def _after_fork_in_child() -> None:
    for kept in list(_KEPT):
        kept._forget_after_fork()  # noqa: SLF001 -- the module's own fork hook


os.register_at_fork(after_in_child=_after_fork_in_child)
