"""Confinement: which workspace paths the dream model may read and which it may write.

This module owns the two path rules of invariant 8 and nothing else; which paths are
writable is ``reverie.core.writable``'s text rule (restated below), which paths exist is
``reverie.storage.folder.layout``, and the filesystem rule here is that module's link rule
made stricter (no symlink at all); it never opens a file for writing.
Every path the model names goes through ``resolve_writable`` or
``resolve_readable`` before anything touches the disk, and a refusal is a ``ConfinementError`` whose
``reason`` is written for the model to read.

Writable (exact, case-sensitive, ASCII only)::

    SOUL.md   USER.md   memory/MEMORY.md   skills/<name>/SKILL.md
    where <name> matches [a-z0-9][a-z0-9_-]{0,63}

Text rules, checked before the filesystem: the raw path must be a non-empty string of at most
``MAX_PATH_CHARS`` characters without NUL, control characters, whitespace, backslashes, ``~``,
``:`` (URLs, drive letters), a leading ``/`` or a ``..`` anywhere. Segments equal to ``.`` are
dropped (models like writing ``./SOUL.md``); empty segments (``//``, a trailing ``/``) are
refused. What remains must be one of the writable paths *exactly*: case variants, trailing dots
or spaces, fullwidth letters, combining marks and other normalisation forms are refused, with a
hint when the path only looks like an allowed one.

Filesystem rules, checked on the real tree: no existing component (folder or file) may be a
symlink, every existing folder must be a folder and an existing file a regular file, and the
real path must be exactly ``realpath(root)/<canonical>``. A hard-linked file (link count > 1)
is refused too: its text may belong to a file elsewhere.

Readable: any existing regular file whose real path lies inside the real root,
named without ``..``, NUL, control characters, backslashes, ``~`` or ``:``, and neither the named
path nor the real path passes through a denied place: any hidden (dot) name (``.git/``,
``.reverie/`` with its locks, ledger and publish journal, ``.env``, cursor files and temp files),
``sessions/``, the history log and its quarantine (``memory/history*.jsonl``: the model is
given its batch of entries, and the quarantine holds raw damaged lines), and reverie's config
file names (they may hold API keys). Denied names are compared after NFKC normalisation and
case folding, so look-alikes and case-insensitive filesystems cannot reach them. Symlinks
inside the workspace are followed only when their target passes the same rules. Hard-linked
files (link count > 1) are refused, since their content may belong to a file elsewhere.

Checks and uses are not atomic: a process that can already write the workspace could swap a
folder for a symlink between check and use. Publish re-checks right before each rename to
keep that window small; defending against a hostile local user is out of scope.
"""

from __future__ import annotations

import os
import re
import stat
import unicodedata
from pathlib import Path

from reverie.core.writable import canonical_writable, clean_segments
from reverie.errors import ConfinementError
from reverie.storage.folder.layout import check_writable_on_disk

DENIED_TOP_LEVEL = frozenset({"sessions", "reverie.toml", "config.toml", "config.json"})
"""First path segments the model may never read (compared NFKC + casefolded)."""

_DENIED_HISTORY = re.compile(r"memory/history.*\.jsonl")


def resolve_writable(root: Path, raw_path: str) -> str:
    """Return the canonical relative path the model may write, or refuse it.

    Args:
        root: the workspace folder.
        raw_path: the path exactly as the model gave it.

    Returns:
        One of the writable paths, e.g. ``"memory/MEMORY.md"``.

    Raises:
        ConfinementError: the text or the filesystem breaks a rule (see the module docstring).
    """
    canonical = canonical_writable(raw_path)
    check_writable_on_disk(root, canonical)
    return canonical


def resolve_readable(root: Path, raw_path: str) -> Path:
    """Return the real path of a workspace file the model may read, or refuse it.

    Args:
        root: the workspace folder.
        raw_path: the path exactly as the model gave it (relative to the workspace).

    Returns:
        The resolved absolute path of an existing regular file inside the workspace.

    Raises:
        ConfinementError: the path is denied, escapes the workspace, or is not a regular file.
    """
    segments = clean_segments(raw_path, ascii_only=False)
    _refuse_denied(segments, raw=str(raw_path))
    real_root = Path(os.path.realpath(root))
    real = Path(os.path.realpath(real_root.joinpath(*segments)))
    if real == real_root or not real.is_relative_to(real_root):
        raise ConfinementError("resolves outside the workspace", path=str(raw_path))
    _refuse_denied(list(real.relative_to(real_root).parts), raw=str(raw_path))
    try:
        info = real.stat()
    except FileNotFoundError as exc:
        raise ConfinementError("no such file", path=str(raw_path)) from exc
    except OSError as exc:
        raise ConfinementError(f"cannot inspect ({exc.strerror})", path=str(raw_path)) from exc
    if not stat.S_ISREG(info.st_mode):
        raise ConfinementError("not a regular file", path=str(raw_path))
    if info.st_nlink > 1:
        raise ConfinementError("hard-linked files are not readable", path=str(raw_path))
    return real


def _refuse_denied(segments: list[str], *, raw: str) -> None:
    folded = [unicodedata.normalize("NFKC", segment).casefold() for segment in segments]
    if any(segment.startswith(".") for segment in folded):
        raise ConfinementError("hidden files and folders (such as .git) are not readable", path=raw)
    if folded and folded[0] in DENIED_TOP_LEVEL:
        raise ConfinementError(f"{segments[0]!r} is reverie-internal and not readable", path=raw)
    if _DENIED_HISTORY.fullmatch("/".join(folded)) is not None:
        raise ConfinementError(
            "the history log is not readable; your batch of entries is in the prompt", path=raw
        )
