"""The two cursor files of a workspace: ``memory/.cursor`` and ``memory/.dream_cursor``.

Both hold one non-negative integer as text (nanobot's format). ``.cursor`` is the last cursor
handed out; after a trim it is the only record of how far numbering went, so it is a floor the
next cursor must exceed. ``.dream_cursor`` is the last cursor dream consumed.

Writes never leave a file empty or torn. ``.cursor`` is on the append hot path, so it is read
and updated on a descriptor kept open (``descriptors.KeptFile``, reopened when the file was
replaced or after a fork) with a single ``pwrite`` of the new number at offset 0: cursors only
grow, so the new text is at least as long as the old and one small write either happens entirely
or not at all (a SIGKILL cannot split a single page-sized write). When the file holds longer
text than the new number (hand edits, trailing spaces) it falls back to an atomic replace.
``.dream_cursor`` changes rarely and is always replaced atomically.
"""

from __future__ import annotations

import os
from pathlib import Path

from reverie.core.cursors import parse_cursor_text, validate_cursor
from reverie.errors import StorageError
from reverie.storage.folder.atomic import atomic_write_text
from reverie.storage.folder.descriptors import KeptFile


def _read(path: Path) -> int | None:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise StorageError(f"cannot read cursor file ({exc})", path=path) from exc
    return parse_cursor_text(text, path=path)


class CursorFloor:
    """``memory/.cursor``: the last cursor handed out."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._kept = KeptFile(path, os.O_RDWR)
        self._read_at: tuple[int, int] | None = None
        """The descriptor and size of the last ``read`` (for ``advance(just_read=True)``)."""

    def read(self) -> int:
        """Return the stored value, 0 when the file is absent or empty.

        Read on every append (another program may have raised it), so with raw system calls
        on a kept descriptor (``descriptors.KeptFile``: one ``stat`` and one ``pread``). A
        file this process may not write (a read-only workspace) is opened for each read.
        """
        self._read_at = None
        try:
            opened = self._kept.open()
        except OSError:
            return self._read_unkept()
        if opened is None:
            return 0
        data = os.pread(opened[0], 64, 0)
        self._read_at = opened
        if len(data) < 64 and data.strip().isdigit():
            return int(data)
        return _read(self.path) or 0  # unusual text: the careful path, with its errors

    def _read_unkept(self) -> int:
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            return 0
        except OSError as exc:
            raise StorageError(f"cannot read cursor file ({exc.strerror})", path=self.path) from exc
        try:
            data = os.read(fd, 64)
        finally:
            os.close(fd)
        if len(data) < 64 and data.strip().isdigit():
            return int(data)
        return _read(self.path) or 0

    def advance(self, cursor: int, *, just_read: bool = False) -> None:
        """Record ``cursor`` as the last handed out (caller holds the history lock).

        ``just_read``: the caller read the floor under the same hold of the lock, so the file
        found then is the file now (reverie replaces it only under that lock): it is written
        without looking at the path again.
        """
        data = str(validate_cursor(cursor)).encode("ascii")
        read_at, self._read_at = self._read_at, None
        try:
            if just_read and read_at is not None and self._kept.holds(read_at[0]):
                opened: tuple[int, int] | None = read_at
            else:
                opened = self._kept.open(create=True)
            if opened is not None and opened[1] <= len(data):
                os.pwrite(opened[0], data, 0)
                return
        except OSError as exc:
            raise StorageError(
                f"cannot update cursor file ({exc.strerror})", path=self.path
            ) from exc
        atomic_write_text(self.path, data.decode("ascii"))

    def close(self) -> None:
        """Close the kept descriptor (the next read or advance opens the file again)."""
        self._read_at = None
        self._kept.close()


class DreamCursor:
    """``memory/.dream_cursor``: the last history cursor dream has consumed."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> int:
        """Return the dream cursor, 0 when dream has never run."""
        return _read(self.path) or 0

    def write(self, cursor: int) -> None:
        """Replace the dream cursor atomically.

        Raises:
            CursorError: ``cursor`` is not a non-negative integer.
        """
        atomic_write_text(self.path, str(validate_cursor(cursor)))
