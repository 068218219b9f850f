"""What dream may write, as a text rule: the writable paths and the checks on a raw path.

Writable (exact, case-sensitive, ASCII only)::

    SOUL.md   USER.md   memory/MEMORY.md   skills/<name>/SKILL.md
    where <name> matches [a-z0-9][a-z0-9_-]{0,63}

A raw path must be a non-empty string of at most ``MAX_PATH_CHARS`` characters without NUL,
control characters, whitespace, backslashes, ``~``, ``:`` (URLs, drive letters), a leading
``/`` or a ``..`` anywhere. Segments equal to ``.`` are dropped; empty segments are refused.
What remains must be one of the writable paths *exactly*: case variants, trailing dots or
spaces, fullwidth letters and other normalisation forms are refused, with a hint when the
path only looks like an allowed one (``canonical_writable``). A refusal is a
``ConfinementError`` written for the model to read. Both backends and the dream tools apply
these rules; the folder backend adds its filesystem rules (``storage.folder.confine``). No I/O.
"""

from __future__ import annotations

import re
import unicodedata

from reverie.core.durable import RELATIVE_PATHS
from reverie.errors import ConfinementError

FIXED_WRITABLE: tuple[str, ...] = tuple(RELATIVE_PATHS.values())
"""The fixed paths dream may write (plus skill files): the durable files."""

MAX_PATH_CHARS = 256
"""Longest raw path accepted (the longest writable path is 82 characters)."""


def is_writable_path(canonical: str) -> bool:
    """True when ``canonical`` is exactly one of the writable paths (text rule only)."""
    return canonical in FIXED_WRITABLE or SKILL_FILE.fullmatch(canonical) is not None


def canonical_writable(raw_path: object) -> str:
    """Apply the text rules only and return the canonical writable path (no disk access).

    Raises:
        ConfinementError: the text is not one of the writable paths.
    """
    segments = clean_segments(raw_path)
    canonical = "/".join(segments)
    if is_writable_path(canonical):
        return canonical
    raise ConfinementError(_why_not_writable(canonical), path=str(raw_path))


def clean_segments(raw_path: object, *, ascii_only: bool = True) -> list[str]:
    """Apply the text rules shared by reads and writes; return the path's segments."""
    if not isinstance(raw_path, str):
        raise ConfinementError("the path must be a string", path=repr(raw_path))
    reason = _text_problem(raw_path, ascii_only=ascii_only)
    if reason is not None:
        raise ConfinementError(reason, path=raw_path)
    segments = [segment for segment in raw_path.split("/") if segment != "."]
    if "" in segments:
        raise ConfinementError("empty path segment ('//' or a trailing '/')", path=raw_path)
    if not segments:
        raise ConfinementError("names the workspace itself, not a file", path=raw_path)
    return segments


def _text_problem(raw: str, *, ascii_only: bool) -> str | None:
    checks: tuple[tuple[bool, str], ...] = (
        (not raw, "empty path"),
        (len(raw) > MAX_PATH_CHARS, f"longer than {MAX_PATH_CHARS} characters"),
        ("\x00" in raw, "contains a NUL byte"),
        ("\\" in raw, "backslashes are not allowed; use '/'"),
        (raw.startswith("/"), "absolute paths are not allowed; use a workspace-relative path"),
        ("~" in raw, "'~' is not allowed"),
        (":" in raw, "':' is not allowed (no URLs or drive letters)"),
        (".." in raw, "'..' is not allowed"),
        (any(_is_control_or_space(char) for char in raw), "control or whitespace characters"),
        (ascii_only and not raw.isascii(), "non-ASCII characters (look-alikes are refused)"),
    )
    return next((reason for failed, reason in checks if failed), None)


def _is_control_or_space(char: str) -> bool:
    return char.isspace() or unicodedata.category(char) in {"Cc", "Cf", "Cs", "Zl", "Zp", "Zs"}


def _why_not_writable(canonical: str) -> str:
    folded = unicodedata.normalize("NFKC", canonical).casefold().rstrip(". ")
    for allowed in FIXED_WRITABLE:
        if folded == allowed.casefold():
            return f"not writable; paths are exact and case-sensitive: did you mean {allowed!r}?"
    match = re.fullmatch(r"skills/([^/]*)/skill\.md", folded)
    if match is not None:
        return (
            "not writable; skills live at 'skills/<name>/SKILL.md' with <name> of lowercase "
            "letters, digits, '-' or '_' (at most 64, starting with a letter or digit)"
        )
    return (
        "not writable; dream may write only SOUL.md, USER.md, memory/MEMORY.md "
        "and skills/<name>/SKILL.md"
    )


SKILL_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}", re.ASCII)


SKILL_FILE = re.compile(r"skills/([a-z0-9][a-z0-9_-]{0,63})/SKILL\.md", re.ASCII)
