"""How to add an optional extra, said for the way this reverie was installed.

reverie is installed from a checkout (``pip install -e .``, what ``./dev`` does) or from a
built wheel or folder, not from a package index that knows its name, so a hint such as
``pip install 'reverie[serve]'`` fails where the user stands. ``install_hint`` reads the
install's own record (PEP 610 ``direct_url.json``) and names the command that works there:
``pip install -e '/path/to/checkout[serve]'`` for an editable checkout,
``pip install '/path/to/reverie-0.1.0-py3-none-any.whl[serve]'`` for a wheel, and the plain
``pip install 'reverie[serve]'`` only when the record names no local source.

Pure of side effects: the record is read on the first hint (an error path), never at import.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import metadata
from urllib.parse import unquote, urlparse


def install_hint(extra: str) -> str:
    """The command that adds ``extra`` (``serve``, ``postgres``, ...) to this install."""
    url, editable = _record()
    return hint_for(url, editable=editable, extra=extra)


def hint_for(url: str | None, *, editable: bool, extra: str) -> str:
    """The command for an install from ``url`` (a PEP 610 ``url``; None: from an index)."""
    if url is None or not url.startswith("file://"):
        return f"pip install 'reverie[{extra}]'"
    source = unquote(urlparse(url).path)
    return f"pip install {'-e ' if editable else ''}'{source}[{extra}]'"


@cache
def _record() -> tuple[str | None, bool]:
    """The URL this reverie was installed from (PEP 610), and whether it is editable."""
    try:
        record = metadata.distribution("reverie").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return None, False
    try:
        found = json.loads(record or "null")
    except ValueError:
        return None, False
    if not isinstance(found, dict) or not isinstance(found.get("url"), str):
        return None, False
    info = found.get("dir_info")
    return str(found["url"]), isinstance(info, dict) and info.get("editable") is True
