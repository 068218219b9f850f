"""Session keys to file names: reversible, collision-free, and unable to leave ``sessions/``.

Encoding. Lowercase ASCII letters, digits, ``_`` and ``-`` stand for themselves; an uppercase
letter ``X`` becomes ``^x``; every other character becomes ``%hh`` per UTF-8 byte (lowercase
hex). So ``telegram:12345`` is ``telegram%3a12345``. The output never contains ``/``, ``.``,
a NUL or an uppercase letter, so no name can climb out of the folder or be hidden, and keys
that differ only in case stay distinct on case-insensitive file systems.

Long keys. File names are limited to 255 bytes, so an encoded name longer than ``_MAX_PLAIN``
becomes its first ``_PREFIX`` characters, ``~``, and the SHA-256 of the key in hex. ``~`` never
appears in a plain name, so the two forms cannot collide. Such a name is not reversible by
itself: the journal's head record holds the full key, and the store checks it on open (a
mismatch, i.e. a SHA-256 collision, is refused rather than mixed up).

This module does no I/O.
"""

from __future__ import annotations

import hashlib
import re

from reverie.core.inbound import check_session_key

_LITERAL = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-")
_MAX_PLAIN = 160
_PREFIX = 80
_HASHED = re.compile(rf"[a-z0-9_^%-]{{0,{_PREFIX}}}~[0-9a-f]{{64}}")
_PLAIN = re.compile(r"(?:[a-z0-9_-]|\^[a-z]|%[0-9a-f]{2})+")


def check_key(key: object) -> str:
    """Return ``key`` when it can name a session.

    Raises:
        InputError: the key is not a non-empty string of valid Unicode text, or too long
            (``reverie.core.inbound.check_session_key``; InputError is also a ValueError).
    """
    return check_session_key(key)


def _escape(char: str) -> str:
    if char in _LITERAL:
        return char
    if "A" <= char <= "Z":
        return "^" + char.lower()
    return "".join(f"%{byte:02x}" for byte in char.encode("utf-8"))


def key_to_stem(key: str) -> str:
    """Return the file name stem (no suffix) for ``key``.

    Raises:
        ValueError: ``key`` is not a valid session key (see ``check_key``).
    """
    plain = "".join(_escape(char) for char in check_key(key))
    if len(plain) <= _MAX_PLAIN:
        return plain
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()
    return f"{plain[:_PREFIX]}~{digest}"


def is_stem(stem: str) -> bool:
    """Return whether ``stem`` is a name ``key_to_stem`` can produce (plain or hashed)."""
    return bool(_PLAIN.fullmatch(stem) or _HASHED.fullmatch(stem))


def stem_to_key(stem: str) -> str | None:
    """Return the key a plain stem encodes; None for a hashed stem or a foreign name."""
    if len(stem) > _MAX_PLAIN or not _PLAIN.fullmatch(stem):
        return None
    out = bytearray()
    index = 0
    while index < len(stem):
        char = stem[index]
        if char == "^":
            out += stem[index + 1].upper().encode("ascii")
            index += 2
        elif char == "%":
            out.append(int(stem[index + 1 : index + 3], 16))
            index += 3
        else:
            out += char.encode("ascii")
            index += 1
    try:
        key = out.decode("utf-8")
    except UnicodeDecodeError:
        return None
    # Only the canonical spelling is ours (e.g. "%61" would decode to "a" but is not).
    return key if key_to_stem(key) == stem else None
