"""The one redaction rule: credential shapes and secrets stated in prose, in five languages."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reverie.core.redact import contains_secret, display_url, find_kinds, redact, scrub_urls
from reverie.core.redact.checksums import iban_valid, luhn_valid

SECRET_STATEMENTS = [
    ("My password for the bank is Tr0ub4dor", "Tr0ub4dor", "password"),
    ("My PIN for the card is 4821", "4821", "pin"),
    ("My PIN for card 2 is 4821", "4821", "pin"),
    ("card 4111 1111 1111 1111 with CVV 123", "4111 1111 1111 1111", "card number"),
    ("card 4111 1111 1111 1111 with CVV 123", "123", "cvv"),
    ("the wifi passphrase is correct horse battery staple.", "horse battery", "passphrase"),
    ("login is mira@example.com / Sunshine2024", "Sunshine2024", "password"),
    ("login with password Sunshine2024", "Sunshine2024", "password"),
    ("my social security number is 078-05-1120", "078-05-1120", "national id"),
    ("SSN: 078051120", "078051120", "national id"),
    ("Mein Passwort ist Geheim123", "Geheim123", "password"),
    ("Die Geheimzahl lautet 9911.", "9911", "pin"),
    ("Mon mot de passe est soleil42.", "soleil42", "password"),
    ("Le code PIN est 2468", "2468", "pin"),
    ("Mi contraseña es sol2024", "sol2024", "password"),
    ("El número de seguro social es 123456789", "123456789", "national id"),
    ("我的银行卡密码是482193，别告诉别人", "482193", "password"),
    ("wifi密码：abc12345", "abc12345", "password"),
    ("我的身份证号是110101199003074512", "110101199003074512", "national id"),
    ("password is hunter2", "hunter2", "password"),
    ('{"password": "hunter2", "user": "bob"}', "hunter2", "password"),
    ("IBAN DE89 3704 0044 0532 0130 00, thanks", "3704 0044", "iban"),
    ("key sk-proj-abcdefghijklmnop1234 here", "sk-proj-abcdefghijklmnop1234", "api key"),
    ("AKIAABCDEFGHIJKLMNOP is the id", "AKIAABCDEFGHIJKLMNOP", "api key"),
    ("ghp_abcdefghijklmnopqrstuvwx12 token", "ghp_abcdefghijklmnopqrstuvwx12", "api key"),
    ("Authorization: Bearer abcdefghijklmnop123", "abcdefghijklmnop123", "token"),
    ("jwt eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.SflKxwRJSMeKKF2QT4", "eyJzdWIiOiIxMjM0", "token"),
    (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIabc\n-----END RSA PRIVATE KEY-----",
        "MIIabc",
        "private key",
    ),
    ("db at postgres://admin:S3cretPw@db.local/app", "S3cretPw", "credentials"),
]


@pytest.mark.parametrize(("text", "secret", "kind"), SECRET_STATEMENTS)
def test_redact_removes_the_secret_and_names_its_kind(text: str, secret: str, kind: str) -> None:
    redacted = redact(text)
    assert secret not in redacted
    assert f"[redacted: {kind}]" in redacted
    assert kind in find_kinds(text)


def test_redact_keeps_the_harmless_rest_of_the_sentence() -> None:
    assert redact("My password for the bank is Tr0ub4dor, sadly.") == (
        "My password for the bank is [redacted: password], sadly."
    )
    assert redact("login is mira@example.com / Sunshine2024") == (
        "login is mira@example.com / [redacted: password]"
    )


@pytest.mark.parametrize(
    "text",
    [
        "I prefer metric units and short answers.",
        "I changed the password tomorrow",
        "I use a password manager",
        "commit 0123456789abcdef0123456789abcdef01234567 fixed it",
        "Call me at 10:30, the meeting is in room 4.",
        "Ich trinke gern Kaffee ohne Zucker.",
        "我喜欢简短的回答。",
        "card 4111 1111 1111 1112 is not a valid number",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact(text) == text
    assert not contains_secret(text)


def test_check_digits() -> None:
    assert luhn_valid("4111111111111111")
    assert not luhn_valid("4111111111111112")
    assert iban_valid("DE89 3704 0044 0532 0130 00")
    assert not iban_valid("DE88 3704 0044 0532 0130 00")


def test_display_url_drops_userinfo_and_secret_query_values() -> None:
    shown = display_url("http://admin:S3cretPw@127.0.0.1:9/v1?api_key=abc123&x=1")
    assert shown == "http://[redacted: credentials]@127.0.0.1:9/v1?api_key=[redacted: token]&x=1"
    assert scrub_urls("see https://h.example/p?token=zzz9 now") == (
        "see https://h.example/p?token=[redacted: token] now"
    )


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_redact_is_idempotent_and_total(text: str) -> None:
    once = redact(text)
    assert redact(once) == once
    assert not contains_secret(once)


def test_redact_url_and_redact_shown_hide_what_a_proxy_would_print() -> None:
    from reverie.core.redact import redact_shown, redact_url

    assert (
        redact_url("redis://:hunter2@cache:6379/0")
        == "redis://[redacted: credentials]@cache:6379/0"
    )
    assert redact_url("https://u:p%40ss@api.example/v1?key=abc123&x=1") == (
        "https://[redacted: credentials]@api.example/v1?key=[redacted: token]&x=1"
    )
    body = "Incorrect API key provided: Bearer sk-proj-abcdefghijklmnop1234 at http://a:b@h/v1"
    shown = redact_shown(body)
    assert "sk-proj-abcdefghijklmnop1234" not in shown
    assert "a:b@" not in shown


def test_a_value_with_no_letter_or_digit_is_not_a_secret() -> None:
    # Found by the ordinary-message corpus: a smiley after a variable's name.
    text = "the API key is read from REVERIE_API_KEY :)"
    assert redact(text) == text
    assert redact("REVERIE_API_KEY: sk-abc123def456") == "REVERIE_API_KEY: [redacted: api key]"
