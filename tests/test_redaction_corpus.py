"""Generated secrets in every claimed kind, phrasing and language are redacted; plain text is not.

The corpus (tests/redaction_corpus.py) composes kind x template x separator x language x
surrounding text x value shape; bench/redaction.py prints the counts and the false-positive
rate over a larger sample.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from reverie.core.redact import contains_secret, redact
from reverie.core.redact.lexicon import LANGUAGES
from tests.redaction_corpus import (
    LANGS,
    PHRASINGS,
    SecretMessage,
    ordinary_messages,
    secret_messages,
)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(secret_messages())
def test_no_generated_secret_survives_redaction(message: SecretMessage) -> None:
    redacted = redact(message.text)
    for piece in message.pieces():
        assert piece not in redacted, (message.kind, message.lang, message.template, redacted)
    assert not contains_secret(redacted)


@settings(max_examples=600, deadline=None)
@given(ordinary_messages())
def test_ordinary_messages_are_left_alone(text: str) -> None:
    assert redact(text) == text


def test_the_corpus_covers_every_claimed_language_with_many_phrasings() -> None:
    assert set(LANGS) == set(LANGUAGES)
    for lang in LANGUAGES:
        assert sum(1 for _, used, _ in PHRASINGS if used == lang) >= 20, lang
