"""Importing one path: detect its format, read it with the right reader, return one batch.

``load`` is the importers' entry point: it never writes anything (the caller decides how the
batch becomes sessions, history and files) and reports bad records as problems instead of
stopping. Conversations come back ordered by their first timestamp.
"""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo
from pathlib import Path

from reverie.memory.ingest.importers.chatgpt import ChatGPTReader
from reverie.memory.ingest.importers.conversation import (
    ImportBatch,
    ImportedConversation,
    ImportProblem,
    ProgressCallback,
)
from reverie.memory.ingest.importers.detection import Sniffed, sniff
from reverie.memory.ingest.importers.nanobot import NanobotReader
from reverie.memory.ingest.importers.openai_format import OpenAIReader

_LAST = datetime.max.replace(tzinfo=UTC)


def load(
    path: Path,
    *,
    on_progress: ProgressCallback | None = None,
    local_tz: tzinfo | None = None,
    home: Path | None = None,
) -> ImportBatch:
    """Read everything importable at ``path``.

    Args:
        path: a file (JSON, JSON Lines, a ChatGPT export zip) or a folder (a ChatGPT export or
            a nanobot workspace).
        on_progress: called as ``on_progress(done, total)`` after each record read.
        local_tz: the zone of times written without one (default: this system's zone).
        home: where ``~/.nanobot`` is looked for (default: ``$HOME``).

    Raises:
        ImportSourceError: the path does not exist or cannot be read.
        UnknownImportFormatError: it holds no format reverie can import.
    """
    found = sniff(path)
    if found.format in ("nanobot-workspace", "nanobot-sessions", "nanobot-session"):
        reader = NanobotReader(local_tz=local_tz, on_progress=on_progress, home=home)
        return _nanobot(path, found, reader)
    if found.format == "chatgpt-export":
        chatgpt = ChatGPTReader(path=found.path, on_progress=on_progress)
        chatgpt.read(found.document)
        return _batch(path, found, chatgpt.conversations, chatgpt.problems)
    openai = OpenAIReader(path=found.path, local_tz=local_tz, on_progress=on_progress)
    if found.format == "openai-jsonl":
        openai.read_lines(found.lines)
    else:
        openai.read_json(found.document)
    return _batch(path, found, openai.conversations, openai.problems)


def _nanobot(path: Path, found: Sniffed, reader: NanobotReader) -> ImportBatch:
    workspace = None
    if found.format == "nanobot-session":
        reader.read_session(path)
        if reader.on_progress is not None:
            reader.on_progress(1, 1)
    elif found.format == "nanobot-sessions":
        reader.read_sessions_folder(path)
    else:
        workspace = reader.read_workspace(path)
    return ImportBatch(
        source=path,
        format=found.format,
        conversations=_ordered(reader.conversations),
        problems=tuple(reader.problems),
        workspace=workspace,
        skipped_records=reader.skipped,
        notes=tuple(reader.notes),
    )


def _batch(
    path: Path,
    found: Sniffed,
    conversations: list[ImportedConversation],
    problems: list[ImportProblem],
) -> ImportBatch:
    return ImportBatch(
        source=path,
        format=found.format,
        conversations=_ordered(conversations),
        problems=tuple(problems),
    )


def _ordered(conversations: list[ImportedConversation]) -> tuple[ImportedConversation, ...]:
    return tuple(sorted(conversations, key=lambda c: c.started_at or _LAST))
