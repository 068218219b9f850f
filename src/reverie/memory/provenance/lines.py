"""The lines of the durable files that provenance speaks about, and matching them to a query.

A *durable line* is a non-blank line of SOUL.md, USER.md, memory/MEMORY.md or a skill file
(``skills/<name>/SKILL.md``) that is not a Markdown heading or a code fence: in practice the
bullets dream writes. ``matches`` decides whether a line answers a ``why``/``forget`` query:
the query, normalised like the line (``line_key``), is a substring of it; ``resembles`` is the
looser test ``why`` falls back on. This module does no I/O: the texts come from the backend
(``ProvenanceAccess.durable_texts``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from reverie.core.provenance import line_key
from reverie.memory.provenance.similarity import content_tokens


@dataclass(frozen=True, slots=True, kw_only=True)
class DurableLine:
    """One line of a durable file: the file (workspace-relative), its 1-based number, its text."""

    file: str
    number: int
    text: str

    @property
    def key(self) -> str:
        """The normalised text the sidecar keys the line by."""
        return line_key(self.text)


def content_lines(text: str) -> list[tuple[int, str]]:
    """The (1-based number, text) of every line that is neither blank, a heading nor a fence."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped and not stripped.startswith(("#", "```", "<!--")):
            found.append((number, line.rstrip()))
    return found


def durable_lines(texts: Mapping[str, str]) -> list[DurableLine]:
    """Every durable line of ``texts`` (path -> text, as ``durable_texts`` gives), in order."""
    lines = []
    for relative, text in texts.items():
        lines += [DurableLine(file=relative, number=n, text=t) for n, t in content_lines(text)]
    return lines


def matches(line: str, query: str) -> bool:
    """Whether the normalised ``query`` occurs in the normalised ``line`` (never for '')."""
    wanted = line_key(query)
    return bool(wanted) and wanted in line_key(line)


def resembles(line: str, query: str) -> bool:
    """Whether every content word of ``query`` is in ``line`` ("live in Porto": "Lives in Porto").

    ``why`` falls back on it when no line ``matches``; ``forget`` never does.
    """
    wanted = content_tokens(query)
    return bool(wanted) and wanted <= content_tokens(line)
