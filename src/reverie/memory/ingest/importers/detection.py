"""Telling which format a path to import holds, by looking at its content, not its name.

- a folder with ``conversations.json``, or a zip file holding one: a ChatGPT export;
- a folder with ``memory/history.jsonl``, ``sessions/*.jsonl``, durable files or
  ``.nanobot/workspace-id``: a nanobot workspace;
- a folder of ``*.jsonl`` files opening with nanobot's metadata line: a nanobot sessions folder
  (0.3.5's ``~/.nanobot/sessions/<workspace-id>/``, or an older ``sessions/``);
- a JSON document: a ChatGPT export when its conversations have a ``mapping``, else
  OpenAI-style messages (a list of messages or of conversations, or one conversation);
- JSON Lines: a nanobot session file when the first line is its metadata object, else
  OpenAI-style messages or conversations, one per line.

``sniff`` keeps what it parsed so the importer does not read the file twice. Anything else
raises ``UnknownImportFormatError`` naming the path and what was found there; a path that
cannot be read raises ``ImportSourceError``.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass
from pathlib import Path

from reverie.config.bounded import read_bounded
from reverie.core.messages import JSONValue
from reverie.errors import ImportSourceError, UnknownImportFormatError
from reverie.memory.ingest.importers.conversation import Format
from reverie.memory.ingest.importers.nanobot import looks_like_workspace
from reverie.memory.ingest.importers.nanobot_layout import looks_like_sessions_folder

_EXPORT_NAME = "conversations.json"


@dataclass(frozen=True, slots=True, kw_only=True)
class Sniffed:
    """A detected source: its format and, for files, the parsed document or its lines."""

    format: Format
    path: Path
    document: JSONValue = None
    lines: tuple[bytes, ...] = ()


def detect(path: Path) -> Format:
    """Return the format of the file or folder at ``path``.

    Raises:
        ImportSourceError: the path does not exist or cannot be read.
        UnknownImportFormatError: it holds no format reverie can import.
    """
    return sniff(path).format


def sniff(path: Path) -> Sniffed:
    """Detect the format at ``path`` and keep what was parsed (see ``detect``)."""
    if path.is_dir():
        return _sniff_folder(path)
    if not path.exists():
        raise ImportSourceError("no such file or folder", path=path)
    data = _read(path)
    if data.startswith(b"PK\x03\x04"):
        return _sniff_export(path, _zip_member(path))
    return _sniff_text(path, data)


def _sniff_folder(path: Path) -> Sniffed:
    export = path / _EXPORT_NAME
    if export.is_file():
        return _sniff_export(export, _read(export))
    if looks_like_workspace(path):
        return Sniffed(format="nanobot-workspace", path=path)
    if looks_like_sessions_folder(path):
        return Sniffed(format="nanobot-sessions", path=path)
    raise UnknownImportFormatError(
        "a folder that is neither a nanobot workspace (memory/history.jsonl, sessions/*.jsonl, "
        "SOUL.md, USER.md, .nanobot/workspace-id), a nanobot sessions folder (*.jsonl session "
        "files) nor a ChatGPT export (conversations.json)",
        path=path,
    )


def _sniff_export(path: Path, data: bytes) -> Sniffed:
    sniffed = _sniff_text(path, data)
    if sniffed.format != "chatgpt-export":
        raise UnknownImportFormatError(
            f"{_EXPORT_NAME} here is not a ChatGPT export (no conversation 'mapping')", path=path
        )
    return sniffed


def _sniff_text(path: Path, data: bytes) -> Sniffed:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UnknownImportFormatError("not UTF-8 text, so not JSON", path=path) from exc
    if not text.strip():
        raise UnknownImportFormatError("the file is empty", path=path)
    try:
        document: JSONValue = json.loads(text)
    except RecursionError as exc:
        raise ImportSourceError("JSON nested too deeply to read", path=path) from exc
    except ValueError:
        return _sniff_lines(path, tuple(text.encode("utf-8", "surrogatepass").split(b"\n")))
    return Sniffed(format=_json_format(path, document), path=path, document=document)


def _json_format(path: Path, document: JSONValue) -> Format:
    items = document if isinstance(document, list) else [document]
    # The first record that says what it is decides (a damaged first record must not).
    for item in items:
        if isinstance(item, list):
            return "openai-json"
        if isinstance(item, dict) and "mapping" in item:
            return "chatgpt-export"
        if isinstance(item, dict) and ("role" in item or "messages" in item):
            return "openai-json"
    if isinstance(document, list) and not document:
        return "openai-json"
    raise UnknownImportFormatError(
        "JSON that holds neither messages (objects with 'role'), conversations ('messages') "
        "nor a ChatGPT export ('mapping')",
        path=path,
    )


def _sniff_lines(path: Path, lines: tuple[bytes, ...]) -> Sniffed:
    for raw in lines:
        if not raw.strip():
            continue
        try:
            item = json.loads(raw)
        except (ValueError, RecursionError):
            continue
        if isinstance(item, dict) and item.get("_type") == "metadata":
            return Sniffed(format="nanobot-session", path=path, lines=lines)
        if isinstance(item, list) or (isinstance(item, dict) and "mapping" not in item):
            return Sniffed(format="openai-jsonl", path=path, lines=lines)
        break
    raise UnknownImportFormatError(
        "neither JSON nor JSON Lines of messages or conversations", path=path
    )


def _read(path: Path) -> bytes:
    try:
        return read_bounded(path)
    except OSError as exc:
        raise ImportSourceError(f"cannot read ({exc.strerror})", path=path) from exc


def _zip_member(path: Path) -> bytes:
    try:
        with zipfile.ZipFile(path) as archive:
            names = [n for n in archive.namelist() if n.rsplit("/", 1)[-1] == _EXPORT_NAME]
            if not names:
                raise UnknownImportFormatError(f"a zip file without {_EXPORT_NAME}", path=path)
            return archive.read(min(names, key=len))
    except (zipfile.BadZipFile, OSError) as exc:
        raise ImportSourceError(f"cannot read the zip file ({exc})", path=path) from exc
