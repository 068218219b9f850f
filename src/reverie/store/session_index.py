"""Checkpoints of session journals, so ``list()`` costs O(sessions), not O(messages).

For each journal, ``.reverie/sessions/<stem>.json`` records a ``Tally``: the journal's inode,
how many bytes of it were read, its head line, and the counts and times found there. It is a
cache, written without fsync: a reader trusts it only when the journal still has that inode,
is at least that long, and still starts with that head line (so a deleted and re-created
journal, or a file replaced by hand, is read from the start); otherwise it reads the journal
again. A checkpoint that is missing or unreadable is simply absent.
"""

from __future__ import annotations

import contextlib
import json
from datetime import datetime
from pathlib import Path

from reverie.errors import StorageError
from reverie.store.atomic import atomic_write_text
from reverie.store.session_journal import Tally


class SessionIndex:
    """The checkpoint files of one store, in ``directory``."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def _path(self, stem: str) -> Path:
        return self.directory / f"{stem}.json"

    def load(self, stem: str) -> Tally | None:
        """Return the checkpoint of the journal ``stem``, or None when there is no usable one."""
        try:
            obj = json.loads(self._path(stem).read_text(encoding="utf-8"))
            return Tally(
                inode=int(obj["inode"]),
                size=int(obj["size"]),
                lines=int(obj["lines"]),
                head=str(obj["head"]).encode("utf-8"),
                key=None if obj["key"] is None else str(obj["key"]),
                created_at=_time(obj["created_at"]),
                updated_at=_time(obj["updated_at"]),
                messages=int(obj["messages"]),
                mark=int(obj["mark"]),
                marks=int(obj["marks"]),
                summaries=int(obj["summaries"]),
                metas=int(obj["metas"]),
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def save(self, stem: str, tally: Tally) -> None:
        """Record ``tally`` as the checkpoint of the journal ``stem`` (best effort)."""
        obj = {
            "inode": tally.inode,
            "size": tally.size,
            "lines": tally.lines,
            "head": tally.head.decode("utf-8", errors="replace"),
            "key": tally.key,
            "created_at": None if tally.created_at is None else tally.created_at.isoformat(),
            "updated_at": None if tally.updated_at is None else tally.updated_at.isoformat(),
            "messages": tally.messages,
            "mark": tally.mark,
            "marks": tally.marks,
            "summaries": tally.summaries,
            "metas": tally.metas,
        }
        # A checkpoint is a cache: failing to write one costs a re-read later, nothing more.
        with contextlib.suppress(OSError):
            self.directory.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(StorageError):
            atomic_write_text(self._path(stem), json.dumps(obj, ensure_ascii=False), durable=False)

    def remove(self, stem: str) -> None:
        """Forget the checkpoint of the journal ``stem``."""
        with contextlib.suppress(FileNotFoundError):
            self._path(stem).unlink()


def _time(value: object) -> datetime | None:
    if value is None:
        return None
    return datetime.fromisoformat(str(value))
