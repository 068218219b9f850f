"""Redaction: the one rule for secrets, applied wherever text becomes durable.

``redact`` replaces every secret it recognises with a marker naming its kind
(``[redacted: password]``) and keeps the rest of the text, so "my PIN for the card is 4821"
becomes "my PIN for the card is [redacted: pin]". Two families of rules:

- credential formats (``formats``): API keys (``sk-``, ``AKIA``, ``ghp_``, ...), JSON web
  tokens, PEM private keys, bearer tokens, userinfo in URLs (an empty user too), secret query
  parameters, card numbers passing the Luhn check (spaces, dots or dashes), IBANs passing
  mod-97 (any case), US social security numbers, and long random-looking tokens;
- assignments and flags (``assignments``): ``AWS_SECRET_ACCESS_KEY=…``, ``mysql -pX``,
  ``--password=X``, ``curl -u user:X``;
- statements in prose (``prose``, words in ``lexicon``): passwords, passphrases, PINs, door,
  garage, alarm, locker and safe codes, recovery phrases, 2FA backup codes, CVVs ("the three
  digits on the back"), national ids, API keys and tokens, in English, German, French,
  Spanish, Italian, Portuguese and Chinese (``lexicon.LANGUAGES``).

Text with no trigger, no run of digits and no long word skips every rule (``prefilter``,
built from ``precheck``'s stems): an append of ordinary prose pays a few C-level scans, not
the rules.

Who calls it: the history log on every append (compaction output of both summarisers, ingest,
raw fallbacks), dream's publish (every durable file it writes, and the ones it did not touch,
so a secret already there goes on the next run), the ledger, and every ``ReverieError``
message. A session keeps what was said with its secrets redacted (``core.inbound.admit``);
only an owner's opt-in (``[sessions] raw_transcripts``) keeps the raw text too, beside it,
for that session's own prompt (``reverie.storage.folder.raw_transcripts``).

Invariants: ``redact`` is idempotent (a marker never matches a rule again), never raises, and
``contains_secret(redact(text))`` is False. The rules err on the side of redacting: a false
positive hides one word; a false negative puts a secret into git for good. No I/O.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

from reverie.core.redact.assignments import ASSIGNMENT_RULES
from reverie.core.redact.formats import FORMAT_RULES, Rule, TextView
from reverie.core.redact.precheck import Precheck
from reverie.core.redact.prefilter import Prefilter
from reverie.core.redact.prose import PROSE_RULES
from reverie.core.redact.urls import display_url, redact_url, scrub_urls

__all__ = [
    "RULES",
    "contains_secret",
    "display_url",
    "find_kinds",
    "redact",
    "redact_shown",
    "redact_url",
    "scrub_urls",
]

RULES: tuple[Rule, ...] = FORMAT_RULES[:3] + ASSIGNMENT_RULES + PROSE_RULES + FORMAT_RULES[3:]
"""Private keys and URL credentials first, then assignments and statements, then shapes."""
_BLOCK_RULE, _LINE_RULES = RULES[0], RULES[1:]
_PREFILTER = Prefilter.of(Precheck.of(RULES))


_MAX_PASSES = 4
_MARKER = re.compile(r"\[redacted: ([a-z ]{1,20})\]")


def marker(kind: str) -> str:
    """The text that stands in for a secret of ``kind``."""
    return f"[redacted: {kind}]"


def redact(text: str) -> str:
    """Return ``text`` with every recognised secret replaced by its marker."""
    if len(text) <= _REMEMBERED_CHARS:
        return _redact_remembered(text)
    return _redact(text)


_REMEMBERED_CHARS = 4096
"""Texts up to this long are remembered with their redaction: the proxy redacts every message
a whole-history client resends (to admit it and to reconcile it), so most are seen before."""


def _redact(text: str) -> str:
    if not _PREFILTER.may_match(text):
        return text
    if "private key-----" in text.lower():
        text = _apply(_BLOCK_RULE, text)
    return "".join(_redact_line(line) for line in text.splitlines(keepends=True))


@lru_cache(maxsize=16_384)
def _redact_line(line: str) -> str:
    # Every rule but the private key block stays within one line. Line by line, a rule's
    # cheap pre-check skips most lines, and the lines of durable files, redacted again at
    # every dream, are mostly the same ones (memoised).
    for _ in range(_MAX_PASSES):
        redacted = _one_pass(line)
        if redacted == line:
            break
        line = redacted
    return line


_redact_remembered = lru_cache(maxsize=8192)(_redact)


def redact_shown(text: str) -> str:
    """``text`` fit to print or send to a client: URLs without credentials, secrets redacted.

    For console lines and error bodies (an upstream's "Incorrect API key provided: sk-…").
    """
    return redact(scrub_urls(text))


def contains_secret(text: str) -> bool:
    """True when ``redact`` would change ``text``."""
    return redact(text) != text


def find_kinds(text: str) -> tuple[str, ...]:
    """The kinds of secret ``text`` holds, sorted, without repeats (for reports)."""
    before = Counter(match.group(1) for match in _MARKER.finditer(text))
    after = Counter(match.group(1) for match in _MARKER.finditer(redact(text)))
    return tuple(sorted(after - before))


def _one_pass(text: str) -> str:
    view = TextView.of(text)
    for rule in _LINE_RULES:
        if rule.may_match(view) and rule.pattern.search(text):
            text = _apply(rule, text)
            view = TextView.of(text)
    return text


def _apply(rule: Rule, text: str) -> str:
    markers = [m.span() for m in _MARKER.finditer(text)]
    pieces: list[str] = []
    last = 0
    for match in rule.pattern.finditer(text):
        span = rule.secret_span(match)
        if span is None or span[0] < last or _inside_marker(match.span(), span, markers):
            continue
        pieces.append(text[last : span[0]])
        pieces.append(marker(rule.kind))
        last = span[1]
    pieces.append(text[last:])
    return "".join(pieces)


def _inside_marker(
    whole: tuple[int, int], secret: tuple[int, int], markers: list[tuple[int, int]]
) -> bool:
    """True when a match starts inside a marker or its secret overlaps one (never re-redact)."""
    for start, end in markers:
        if start <= whole[0] < end or (secret[0] < end and start < secret[1]):
            return True
    return False
