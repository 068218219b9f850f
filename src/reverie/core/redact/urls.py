"""URLs shown to people: never with their userinfo or secret query parameters.

``display_url`` (also ``redact_url``) makes one URL safe to print, an empty user included
(``redis://:pass@host``); ``scrub_urls`` does it for every URL inside a text (error messages,
log lines). The scheme, host, port and path stay, so the message still says
where reverie tried to go. Pure functions, no I/O.
"""

from __future__ import annotations

import re

URL = re.compile(r"\b[a-z][a-z0-9+.-]{1,15}://[^\s<>\"'`]+", re.IGNORECASE)

_USERINFO = re.compile(r"^([a-z][a-z0-9+.-]*://)[^/?#\s]*@", re.IGNORECASE)
_SECRET_PARAM = re.compile(
    r"([?&;](?:[a-z0-9_.-]*(?:key|token|secret|password|passwd|pwd|auth|signature|sig|"
    r"credential|session|code)[a-z0-9_.-]*)=)[^&#;\s]*",
    re.IGNORECASE,
)


def display_url(url: str) -> str:
    """Return ``url`` without userinfo (``user:pass@``) and with secret query values masked.

    Examples:
        ``http://admin:S3cret@host:9/v1?api_key=abc&x=1`` becomes
        ``http://[redacted: credentials]@host:9/v1?api_key=[redacted: token]&x=1``.
    """
    shown = _USERINFO.sub(lambda m: f"{m.group(1)}[redacted: credentials]@", url, count=1)
    return _SECRET_PARAM.sub(lambda m: f"{m.group(1)}[redacted: token]", shown)


def scrub_urls(text: str) -> str:
    """Return ``text`` with every URL in it passed through ``display_url``."""
    return URL.sub(lambda m: display_url(m.group(0)), text)


redact_url = display_url
"""The name the proxy calls for an upstream URL it prints or returns (same as ``display_url``)."""
