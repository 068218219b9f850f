"""Credential formats: secrets recognisable by their shape alone, whatever the sentence says.

Each ``Rule`` names a kind (shown in the marker), a pattern, the group that holds the secret
(the rest of the match is context that stays, e.g. ``Bearer``) and an optional check the
secret must pass (check digits for card numbers and IBANs). No I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from reverie.core.redact.checksums import iban_valid, luhn_valid, ssn_valid


@dataclass(frozen=True, kw_only=True)
class Rule:
    """One way a secret shows in text (compiled on first use: importing reverie stays fast)."""

    kind: str
    source: str
    flags: int = 0
    check: Callable[[str], bool] | None = None
    triggers: tuple[str, ...] = ()
    """Lowercase substrings one of which any match contains (none: always search)."""
    min_digits: int = 0
    """Digits any match holds at least (a cheap pre-check for number shapes)."""
    min_word: int = 0
    """Length of the longest whitespace-free run any match needs."""
    leading: frozenset[str] = frozenset()
    """Words dropped from the start of a secret (chatter before a value stated first)."""

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        """The compiled pattern."""
        return re.compile(self.source, self.flags)

    def may_match(self, view: TextView) -> bool:
        """Cheap pre-checks on the text before the regular expression runs."""
        if view.digits < self.min_digits or view.longest_word < self.min_word:
            return False
        return not self.triggers or any(trigger in view.lowered for trigger in self.triggers)

    def secret_span(self, match: re.Match[str]) -> tuple[int, int] | None:
        """The span to replace (group ``secret`` when the pattern has it), or None if unchecked."""
        groups = self.pattern.groupindex
        name: str | int = 0
        if "secret" in groups:
            name = "secret" if match.group("secret") is not None or "zh" not in groups else "zh"
        secret = match.group(name)
        if secret is None:
            return None
        start, end = match.span(name)
        while self.leading and secret.split(" ", 1)[0].lower().strip(",") in self.leading:
            dropped = secret.split(" ", 1)
            if len(dropped) == 1:
                return None
            start, secret = start + len(dropped[0]) + 1, dropped[1]
        if self.check is not None and not self.check(secret):
            return None
        return start, end


_NO_DIGITS = str.maketrans("", "", "0123456789")


@dataclass(frozen=True, slots=True)
class TextView:
    """What the pre-checks of every rule look at, computed once per text."""

    lowered: str
    digits: int
    longest_word: int

    @classmethod
    def of(cls, text: str) -> TextView:
        """Compute the view of ``text``."""
        longest = max(map(len, text.split()), default=0)
        return cls(text.lower(), len(text) - len(text.translate(_NO_DIGITS)), longest)


def _rule(
    kind: str,
    pattern: str,
    check: Callable[[str], bool] | None = None,
    *,
    triggers: tuple[str, ...] = (),
    cased: bool = False,
    min_digits: int = 0,
    min_word: int = 0,
) -> Rule:
    flags = 0 if cased else re.IGNORECASE
    return Rule(
        kind=kind,
        source=pattern,
        flags=flags,
        check=check,
        triggers=triggers,
        min_digits=min_digits,
        min_word=min_word,
    )


def _card(text: str) -> bool:
    digits = re.sub(r"[ .-]", "", text)
    return 13 <= len(digits) <= 19 and luhn_valid(digits)


def _iban(text: str) -> bool:
    # The pattern may run on into a following capitalised word: any valid prefix counts.
    groups = text.split(" ")
    return any(iban_valid("".join(groups[:end])) for end in range(len(groups), 0, -1))


def _random_looking(text: str) -> bool:
    # Paths and snake_case names are long too, but in short pieces; a key is one long run.
    # Git object ids (40 or 64 lowercase hex digits) are names, not secrets.
    if re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", text):
        return False
    longest = max(len(piece) for piece in re.split(r"[/_.=-]", text))
    return longest >= 24 and sum(char.isdigit() for char in text) >= 2


FORMAT_RULES: tuple[Rule, ...] = (
    _rule(
        "private key",
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)",
        triggers=("private key-----",),
    ),
    _rule(
        "credentials",
        r"\b[a-z][a-z0-9+.-]{1,15}://(?P<secret>[^/\s@:?#]*:[^/\s@]*)@",
        triggers=("://",),
    ),
    _rule(
        "token",
        r"[?&;](?:api[_-]?key|access[_-]?token|auth[_-]?token|token|secret|client[_-]?secret|"
        r"password|passwd|pwd|sig|signature)=(?P<secret>[^&#;\s\"'<>]+)",
        triggers=("key=", "token=", "secret=", "pass", "pwd=", "sig"),
    ),
    _rule("api key", r"\bsk-(?:proj-|ant-|live-)?[A-Za-z0-9_-]{16,}", triggers=("sk-",)),
    _rule(
        "api key",
        r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}",
        triggers=("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    _rule("api key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", triggers=("akia", "asia"), cased=True),
    _rule(
        "api key",
        r"\bAIza[0-9A-Za-z_-]{30,}|\bglpat-[A-Za-z0-9_-]{20,}|\bhf_[A-Za-z]{30,}",
        triggers=("aiza", "glpat-", "hf_"),
    ),
    _rule(
        "api key",
        r"\bxox[abprs]-[A-Za-z0-9-]{10,}|\b[sr]k_(?:live|test)_[0-9A-Za-z]{16,}",
        triggers=("xox", "k_live_", "k_test_"),
    ),
    _rule(
        "token", r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", triggers=("eyj",)
    ),
    _rule(
        "token",
        r"\b(?:bearer|basic|token)\s+(?P<secret>[A-Za-z0-9._~+/=-]{12,})",
        triggers=("bearer", "basic", "token"),
    ),
    _rule(
        "card number",
        r"(?<![\d.-])\d(?:[ .-]?\d){12,18}(?![\d-]|\.\d)",
        _card,
        cased=True,
        min_digits=13,
    ),
    _rule(
        "iban",
        r"\b[A-Z]{2}\d{2}(?: ?(?:(?-i:[A-Z]{4})|(?=[A-Z]{0,3}\d)[A-Z0-9]{1,4})){3,8}\b",
        _iban,
        min_digits=6,
    ),
    _rule(
        "national id",
        r"(?<![\d-])\d{3}(?P<sep>[- ])\d{2}(?P=sep)\d{4}(?![\d-])",
        ssn_valid,
        cased=True,
        min_digits=9,
    ),
    _rule(
        "token",
        r"\b(?=[A-Za-z0-9+/_=-]*\d)(?=[A-Za-z0-9+/_=-]*[A-Za-z])[A-Za-z0-9+/_=-]{32,}",
        _random_looking,
        cased=True,
        min_digits=2,
        min_word=24,
    ),
)
"""Shape rules, most specific first (a private key block before the tokens inside it)."""
