"""Where a nanobot workspace keeps its sessions, by release, and what its imports are named.

nanobot up to 0.2 kept session files in the workspace (``<workspace>/sessions/*.jsonl``, file
names from the key). nanobot 0.3.5 keeps them outside, under its config folder:
``~/.nanobot/sessions/<workspace-id>/<base64url(key)>.jsonl``, the 32-hex id written in
``<workspace>/.nanobot/workspace-id``, with the workspace's path recorded in a ``.workspace``
file next to the sessions. ``~`` is ``$HOME`` (``Path.home()``), so tests use a fake one.

Imported sessions never merge into a live session of the target: their keys live in their own
namespace, ``import:nanobot:<source name>:<nanobot key>``, where the source name is the
workspace folder's name (found the same way whether a person ingests the workspace, its
sessions folder or one session file, so re-ingesting by another path adds nothing).

Confinement: a file found inside a source folder is read only when it resolves inside that
folder; a symlink pointing out of it is skipped (the reader reports it). This module reads
nothing but folder listings, the workspace-id and ``.workspace`` markers.
"""

from __future__ import annotations

import base64
import binascii
import re
from pathlib import Path

_WORKSPACE_ID = re.compile(r"[0-9a-f]{32}")
_SESSION_GLOB = "*.jsonl"


def external_sessions_folder(root: Path, home: Path | None = None) -> Path | None:
    """The 0.3.5 sessions folder of the workspace at ``root``, when it has one that exists."""
    folder = expected_sessions_folder(root, home)
    return folder if folder is not None and folder.is_dir() else None


def expected_sessions_folder(root: Path, home: Path | None = None) -> Path | None:
    """Where 0.3.5 keeps the sessions of the workspace at ``root`` (None: it has no valid id).

    The folder may not exist: a workspace copied from another HOME (or a container) keeps its
    id, but its sessions stayed behind.
    """
    marker = root / ".nanobot" / "workspace-id"
    if marker.is_symlink() or not marker.is_file():
        return None
    try:
        ident = marker.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not _WORKSPACE_ID.fullmatch(ident):
        return None
    return (home or Path.home()) / ".nanobot" / "sessions" / ident


def session_files(folder: Path) -> list[Path]:
    """The ``*.jsonl`` files directly in ``folder``, sorted (none when it does not exist)."""
    return sorted(path for path in folder.glob(_SESSION_GLOB) if not path.name.startswith("."))


def source_name(folder: Path) -> str:
    """The name imports from sessions in ``folder`` are filed under (see the module doc)."""
    marker = folder / ".workspace"
    try:
        recorded = marker.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        recorded = ""
    if recorded:
        return Path(recorded).name or folder.name
    if folder.name == "sessions":
        return folder.resolve().parent.name
    return folder.name


def imported_key(source: str, key: str) -> str:
    """The key an imported nanobot session gets: its own namespace, never a live session's."""
    return f"import:nanobot:{source}:{key}"


def key_from_file_name(path: Path) -> str:
    """The nanobot key a session file's name encodes (0.3.5: base64url), else its stem."""
    stem = path.stem
    try:
        decoded = base64.urlsafe_b64decode(stem + "=" * (-len(stem) % 4)).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return stem
    encoded = base64.urlsafe_b64encode(decoded.encode("utf-8")).decode("ascii").rstrip("=")
    return decoded if encoded == stem and decoded.isprintable() else stem


def inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` resolves (symlinks followed) to somewhere inside ``folder``."""
    try:
        return path.resolve().is_relative_to(folder.resolve())
    except OSError:
        return False


def looks_like_sessions_folder(folder: Path) -> bool:
    """True when a ``*.jsonl`` file directly in ``folder`` opens with nanobot's metadata line."""
    for path in session_files(folder):
        try:
            with path.open("rb") as handle:
                first = handle.readline(4096)
        except OSError:
            continue
        if re.match(rb'\s*\{\s*"_type"\s*:\s*"metadata"', first):
            return True
    return False
