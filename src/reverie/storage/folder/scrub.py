"""Scrubbing a forgotten text out of bytes and side files (``forget --purge``).

``Needle`` is the forgotten text in the forms it can take on disk: as typed, case folded,
and JSON-escaped (backslash-u escapes, as ``ensure_ascii`` writers store non-ASCII text).
``scrub_blob`` drops the lines of a durable-file version that hold it (or whose normalised
text is one of the forgotten lines); ``scrub_jsonl`` drops the records of a JSON Lines side
file (quarantines, the ledger) that hold it, also inside a base64 ``raw`` field;
``files_holding`` lists the files under a folder whose raw bytes still hold it. Only
``scrub_jsonl`` writes, atomically.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from pathlib import Path

from reverie.core.needles import Needle
from reverie.storage.folder.atomic import atomic_write


def scrub_jsonl(path: Path, needle: Needle) -> int:
    """Drop the lines of ``path`` that hold the needle; return how many went (0: untouched)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return 0
    lines = data.splitlines(keepends=True)
    kept = [line for line in lines if not _line_holds(line, needle)]
    if len(kept) != len(lines):
        atomic_write(path, b"".join(kept))
    return len(lines) - len(kept)


def _line_holds(line: bytes, needle: Needle) -> bool:
    if needle.in_bytes(line) or needle.in_text(line.decode("utf-8", errors="replace")):
        return True
    try:
        record = json.loads(line)
    except ValueError:
        return False
    raw = record.get("raw") if isinstance(record, dict) else None
    if not isinstance(raw, str):
        return False
    try:
        decoded = base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError):
        return False
    return needle.in_bytes(decoded) or needle.in_text(decoded.decode("utf-8", errors="replace"))


def files_holding(root: Path, needle: Needle) -> list[Path]:
    """Every regular file under ``root`` whose raw bytes hold the needle, sorted."""
    found = []
    for folder, _dirs, names in os.walk(root):
        for name in names:
            path = Path(folder) / name
            if path.is_symlink() or not path.is_file():
                continue
            try:
                data = path.read_bytes()
            except OSError:
                continue
            if needle.in_bytes(data):
                found.append(path)
    return sorted(found)
