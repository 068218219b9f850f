"""The publish guard: what every durable text passes through before dream writes it.

Whatever curated the batch (the model through its tools, or the model-free curator), the text
``Staging`` publishes is ``guard_text(path, base, staged)``:

- secrets are redacted (``reverie.core.redact``), in every writable file, including text that was
  already there (so a secret a person or an older reverie left goes on the next dream);
- in every file (SOUL.md, USER.md, memory/MEMORY.md, skills), each line that is new against
  the base text is screened (``reverie.core.screening.screen_line``: SOUL.md strictest); a
  refused line is dropped and reported as a ``RejectedRule``. Lines that were already in the
  file are never screened: a person may have added them by hand on purpose.

Pure functions over text (results memoised): no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from reverie.core.redact import redact
from reverie.core.screening import RejectedRule, screen_line


@dataclass(frozen=True, slots=True, kw_only=True)
class GuardedText:
    """The text that may be published, and the candidate rules that were refused."""

    text: str
    rejected: tuple[RejectedRule, ...] = ()


@lru_cache(maxsize=32)  # a run asks for its diff, changes and rejections of the same texts
def guard_text(path: str, base: str, staged: str) -> GuardedText:
    """Return the publishable form of ``staged`` (the new text of ``path``; ``base`` the old)."""
    text = redact(staged)
    known = {line.strip() for line in redact(base).splitlines()}
    lines = text.splitlines(keepends=True)
    new = {line.strip(): None for line in lines if line.strip() and line.strip() not in known}
    if screen_line(path, "\n".join(new)) is None:  # the usual case: one search over all new lines
        return GuardedText(text=text)
    kept: list[str] = []
    rejected: list[RejectedRule] = []
    for line in lines:
        stripped = line.strip()
        reason = None if stripped in known or not stripped else screen_line(path, stripped)
        if reason is None:
            kept.append(line)
        else:
            rejected.append(RejectedRule(file=path, rule=stripped, reason=reason))
    return GuardedText(text="".join(kept), rejected=tuple(rejected))
