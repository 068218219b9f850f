"""Acknowledgement files: what each worker process was told is durable, one JSON line each.

A worker appends a line after every engine call that returned (a record, a turn, a dream),
naming what the call wrote: session messages by (session, index, hash), history entries by
(cursor, hash), dream results by outcome, cursors and commit. Every worker generation (each
restart after a SIGKILL) writes its own file, so a line torn by a kill can only be the last
line of its file; readers skip it. The supervisor checks these claims against the workspace.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from reverie.core.messages import Message
from reverie.memory.compaction.result import CompactionResult

Ack = dict[str, Any]


def text_hash(text: str) -> str:
    """A short content hash of ``text``."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def message_hash(message: Message) -> str:
    """A content hash of ``message`` without its timestamp (stores stamp messages)."""
    wire = message.to_json()
    wire.pop("timestamp", None)
    return text_hash(json.dumps(wire, sort_keys=True, ensure_ascii=False))


def entries_written(results: tuple[CompactionResult, ...]) -> list[list[int | str]]:
    """[cursor, content hash] of every history entry the compactions wrote."""
    return [
        [entry.cursor, text_hash(entry.content)] for result in results for entry in result.entries
    ]


class AckWriter:
    """Appends acknowledgement lines to one file (flushed each time, no fsync needed)."""

    def __init__(self, path: Path) -> None:
        self._handle: IO[str] = path.open("a", encoding="utf-8")

    def write(self, ack: Ack) -> None:
        """Append one line (with the wall time) and hand it to the kernel."""
        stamped = {**ack, "at": round(time.time(), 3)}
        self._handle.write(json.dumps(stamped, ensure_ascii=False) + "\n")
        self._handle.flush()

    def close(self) -> None:
        """Close the file."""
        self._handle.close()


@dataclass(frozen=True, slots=True, kw_only=True)
class AckLog:
    """Every acknowledgement of a run, and how many torn last lines were skipped."""

    acks: tuple[Ack, ...]
    torn: int


def read_acks(folder: Path) -> AckLog:
    """Read every ack file in ``folder`` (a torn last line of a file is skipped)."""
    acks: list[Ack] = []
    torn = 0
    for path in sorted(folder.glob("*.jsonl")):
        lines = path.read_bytes().split(b"\n")
        for n, line in enumerate(lines):
            if not line.strip():
                continue
            try:
                acks.append(json.loads(line))
            except ValueError:
                if n != len(lines) - 1:
                    raise
                torn += 1
    return AckLog(acks=tuple(acks), torn=torn)
