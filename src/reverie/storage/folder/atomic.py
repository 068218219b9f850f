"""Crash-safe file replacement and the sweeping of temp files a crash left behind.

``atomic_write`` writes a sibling temp file, fsyncs it, renames it over the target and fsyncs
the directory, so a reader (or a process restarted after SIGKILL or power loss) sees either the
old bytes or the new ones, never a mix and never an empty file.

Temp files are named ``.<target>.<pid>.<random>.rvtmp``. ``sweep_temp_files`` removes only
those whose writing process is gone, so sweeping on open never breaks a live writer's rename.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
from pathlib import Path

from reverie.errors import StorageError

logger = logging.getLogger(__name__)

TEMP_SUFFIX = ".rvtmp"


def temp_path_for(target: Path) -> Path:
    """Return a fresh temp path next to ``target``, tagged with this process id."""
    return target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}{TEMP_SUFFIX}")


def fsync_dir(directory: Path) -> None:
    """Flush a directory entry change (rename, create, unlink) to disk."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(target: Path, data: bytes, *, durable: bool = True) -> None:
    """Replace ``target`` with ``data`` atomically.

    Args:
        target: the file to replace (created if absent).
        data: the complete new contents.
        durable: fsync the file and its directory (skip only for caches that can be rebuilt).

    Raises:
        StorageError: the write or rename failed; the target is unchanged.
    """
    temp = temp_path_for(target)
    try:
        with temp.open("xb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        temp.replace(target)
        if durable:
            fsync_dir(target.parent)
    except OSError as exc:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise StorageError(f"could not write ({exc.strerror})", path=target) from exc


def atomic_write_text(target: Path, text: str, *, durable: bool = True) -> None:
    """Replace ``target`` with UTF-8 ``text`` atomically (see ``atomic_write``)."""
    atomic_write(target, text.encode("utf-8"), durable=durable)


def _writer_alive(temp: Path) -> bool:
    parts = temp.name.split(".")
    # .<target>.<pid>.<random>.rvtmp: the pid is the third field from the end.
    try:
        pid = int(parts[-3])
    except (IndexError, ValueError):
        return False
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_temp_files(directory: Path) -> list[Path]:
    """Delete temp files in ``directory`` whose writing process no longer runs.

    Returns:
        The paths removed (empty when the directory does not exist).
    """
    if not directory.is_dir():
        return []
    removed: list[Path] = []
    for temp in directory.glob(f".*{TEMP_SUFFIX}"):
        if _writer_alive(temp):
            continue
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
            removed.append(temp)
            logger.info("removed orphan temp file %s", temp)
    return removed
