"""A forgotten text as a needle: the forms it takes in text and bytes, and a blob without it.

``Needle`` is the forgotten text (``forget --purge``) in the forms it can take where it is
stored: as typed, case folded, and JSON-escaped (backslash-u escapes, as ``ensure_ascii``
writers store non-ASCII text). ``scrub_blob`` drops the lines of a durable-file version that
hold it (or whose normalised text is one of the forgotten lines). Both backends purge with
these; the folder's side files are scrubbed by ``storage.folder.scrub``. No I/O here.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass

from reverie.core.provenance import line_key


@dataclass(frozen=True, slots=True)
class Needle:
    """The forgotten text, and how to find it in text and in bytes."""

    text: str

    @property
    def folded(self) -> str:
        """Whitespace collapsed, case folded."""
        return " ".join(self.text.split()).casefold()

    def in_text(self, text: str) -> bool:
        """Whether ``text`` holds it (whitespace collapsed, case folded)."""
        return bool(self.folded) and self.folded in " ".join(text.split()).casefold()

    def forms(self) -> tuple[bytes, ...]:
        """Byte forms to look for in raw files: as typed, case folded, JSON-escaped."""
        texts = {self.text, self.text.casefold(), self.text.lower()}
        texts |= {json.dumps(t)[1:-1] for t in list(texts)}
        return tuple(sorted({t.encode("utf-8") for t in texts if t.strip()}))

    def in_bytes(self, data: bytes) -> bool:
        """Whether ``data`` holds one of the byte forms (ASCII letters in any case)."""
        lowered = data.lower()
        return any(form.lower() in lowered for form in self.forms())


def scrub_blob(data: bytes, needle: Needle, keys: Collection[str]) -> bytes:
    """``data`` without the lines that hold the needle or whose normalised text is in ``keys``."""
    text = data.decode("utf-8", errors="surrogateescape")
    kept = [
        line
        for line in text.splitlines(keepends=True)
        if not needle.in_text(line) and (not line.strip() or line_key(line) not in keys)
    ]
    return "".join(kept).encode("utf-8", errors="surrogateescape")
