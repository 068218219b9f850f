"""Recognising credentials in text, so model-free memory never keeps one.

The model-free summariser and curator drop any sentence or fact for which ``contains_secret``
is true; they never try to redact part of it (a half-masked key is still a leak, and the rest
of such a sentence is rarely worth keeping). The patterns err on the side of dropping: a false
positive costs one forgotten sentence, a false negative puts a key into files that are
committed to git and shown in every prompt.

Covered: well-known key shapes (OpenAI/Anthropic ``sk-``, GitHub, AWS, Google, Slack, Stripe),
JSON web tokens, PEM private keys, bearer tokens, credentials inside URLs, "password is ..."
style statements in English and Chinese, and long random-looking tokens. This module does no
I/O.
"""

from __future__ import annotations

import re

_KEY_SHAPES = (
    r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}",
    r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}",
    r"\bgithub_pat_[A-Za-z0-9_]{20,}",
    r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
    r"\bAIza[0-9A-Za-z_-]{30,}",
    r"\bxox[abprs]-[A-Za-z0-9-]{10,}",
    r"\b[sr]k_(?:live|test)_[0-9A-Za-z]{16,}",
    r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----",
    r"\bbearer\s+[A-Za-z0-9._~+/-]{12,}",
    r"[a-z][a-z0-9+.-]*://[^/\s:@]+:[^/\s@]+@",
)

_STATED = (
    (
        r"\b(?:password|passwd|passphrase|passcode|pass ?word|pwd|pin code|pin)\b"
        r"\s*(?:is|was|=|:|-)\s*\S+"
    ),
    (
        r"\b(?:api[ _-]?key|secret(?: key)?|access[ _-]?token|auth[ _-]?token|token|"
        r"client[ _-]?secret|private[ _-]?key)\b\s*(?:is|was|=|:)\s*\S{6,}"
    ),
    r"(?:密码|口令|密钥|私钥|令牌|验证码)\s*(?:是|为|：|:|=)\s*\S+",
)

# A long run of letters and digits mixing both is most likely a key, a token or a hash.
_RANDOM_LOOKING = r"\b(?=[A-Za-z0-9+/_=-]*\d)(?=[A-Za-z0-9+/_=-]*[A-Za-z])[A-Za-z0-9+/_=-]{32,}"

_SECRET = re.compile("|".join((*_KEY_SHAPES, *_STATED, _RANDOM_LOOKING)), re.IGNORECASE)


def contains_secret(text: str) -> bool:
    """Return True when ``text`` holds something that looks like a credential."""
    return _SECRET.search(text) is not None
