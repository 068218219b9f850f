"""One durable file as the curator edits it: lines, of which the top-level bullets are facts.

A durable file is Markdown a person may also edit. The curator only ever touches top-level
bullet lines (``- fact`` or ``* fact``): it replaces one, removes one, or appends a new one.
Every other line (headings, paragraphs, nested bullets, blank lines) is kept byte for byte and
in place. A new fact goes after the last line of the file, with a blank line first when the
file does not already end in a bullet, so the file stays "a heading, then bullets". An empty
file starts from its starter text. ``dirty`` tells whether any edit was made. No I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from reverie.core.durable import STARTER_TEXTS, MemoryFileName

_BULLET = re.compile(r"^[-*] (?P<text>\S.*?)\s*$")


@dataclass(frozen=True, slots=True, kw_only=True)
class Bullet:
    """A top-level bullet of a file: its line index and its text (without ``- ``)."""

    index: int
    text: str


class FactFile:
    """The editable lines of one durable file."""

    def __init__(self, name: MemoryFileName, text: str) -> None:
        self.name = name
        source = text if text.strip() else STARTER_TEXTS[name]
        self._lines = source.splitlines()
        self._ends_with_newline = source.endswith("\n") or not source
        self.dirty = False

    def bullets(self) -> list[Bullet]:
        """Return the top-level bullets, in file order."""
        found = []
        for index, line in enumerate(self._lines):
            match = _BULLET.match(line)
            if match is not None:
                found.append(Bullet(index=index, text=match["text"]))
        return found

    def replace(self, bullet: Bullet, text: str) -> None:
        """Replace ``bullet``'s line with ``- text``, keeping its bullet character."""
        marker = self._lines[bullet.index][0]
        self._lines[bullet.index] = f"{marker} {text}"
        self.dirty = True

    def remove(self, bullets: list[Bullet]) -> None:
        """Remove the lines of ``bullets``."""
        gone = {bullet.index for bullet in bullets}
        self._lines = [line for index, line in enumerate(self._lines) if index not in gone]
        self.dirty = self.dirty or bool(gone)

    def append(self, text: str) -> None:
        """Add ``- text`` at the end of the file."""
        while self._lines and not self._lines[-1].strip():
            self._lines.pop()
        if self._lines and _BULLET.match(self._lines[-1]) is None:
            self._lines.append("")
        self._lines.append(f"- {text}")
        self._ends_with_newline = True
        self.dirty = True

    def size_with(self, text: str) -> int:
        """The file's length in characters if ``- text`` were appended."""
        return len(self.text()) + len(text) + 4

    def text(self) -> str:
        """The file's full text."""
        body = "\n".join(self._lines)
        return body + "\n" if self._ends_with_newline and body else body
