"""Principal ids and the folder each one's workspace lives in: one reversible rule.

A *principal* is whoever owns a memory: a person, or an agent. Its id is the text a
credential or a trusted application names it by (``alice``, ``lc:user1``, an e-mail
address). In a folder home each principal's workspace is one folder directly under the home;
the folder's name is the id with every character outside ``[a-z0-9_.-]`` (and a leading
``.``) written as ``~`` and the two-digit hex of each of its UTF-8 bytes: ``lc:user1`` lives
in ``lc~3auser1``, ``Alice`` in ``~41lice``.

The invariant this module exists for: the rule is injective, so two principals can never
share a folder (``folder_name`` is reversed by ``principal_of``, which accepts only the one
canonical spelling of each id). Nothing the client chooses can name the home's own state
(``HOME_STATE``, a dot-folder, which no encoded id starts with) or a path outside the home.
Pure: no I/O.
"""

from __future__ import annotations

import re

from reverie.errors import InputError

DEFAULT_PRINCIPAL = "default"
"""The single-person setup's principal: ``~/.reverie/default``."""
HOME_STATE = ".home"
"""The home's own folder (tokens), beside the principals' folders."""
MAX_ID_CHARS = 200
MAX_FOLDER_CHARS = 240
_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_.-")
_ESCAPE = re.compile(r"~([0-9a-f]{2})")


def check_principal(principal: object, *, where: str = "principal") -> str:
    """Return ``principal`` if it can name an owner; raise ``InputError`` saying why not."""
    if not isinstance(principal, str) or not principal:
        raise InputError(f"{where}: a principal id must be a non-empty string")
    if principal != principal.strip():
        raise InputError(f"{where}: a principal id may not start or end with white space")
    if len(principal) > MAX_ID_CHARS:
        raise InputError(f"{where}: a principal id has at most {MAX_ID_CHARS} characters")
    if any(ord(char) < 32 or ord(char) == 127 for char in principal):
        raise InputError(f"{where}: a principal id may not hold control characters")
    try:
        principal.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(f"{where}: a principal id must be valid Unicode text") from None
    if len(folder_name(principal)) > MAX_FOLDER_CHARS:
        raise InputError(f"{where}: the principal id is too long once written as a folder name")
    return principal


def folder_name(principal: str) -> str:
    """The folder of ``principal``'s workspace in a folder home (the reversible rule)."""
    out: list[str] = []
    for position, char in enumerate(principal):
        if char in _PLAIN and not (position == 0 and char == "."):
            out.append(char)
        else:
            out.extend(f"~{byte:02x}" for byte in char.encode("utf-8"))
    return "".join(out)


def principal_of(folder: str) -> str | None:
    """The principal whose folder is ``folder``, or None when no id is written that way."""
    raw = bytearray()
    position = 0
    while position < len(folder):
        match = _ESCAPE.match(folder, position)
        if match is not None:
            raw.append(int(match.group(1), 16))
            position = match.end()
        elif folder[position] in _PLAIN:
            raw.extend(folder[position].encode())
            position += 1
        else:
            return None
    try:
        principal = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return principal if principal and folder_name(principal) == folder else None
