"""How to add an optional extra, said for the way this reverie was installed.

reverie is installed from a checkout (``pip install -e .``, what ``./dev`` does) or from a
built wheel or folder, not from a package index that knows its name, so a hint such as
``pip install 'reverie[serve]'`` fails where the user stands. ``install_hint`` reads the
install's own record (PEP 610 ``direct_url.json``) and names the command that works there:
``pip install -e '/path/to/checkout[serve]'`` for an editable checkout,
``pip install '/path/to/reverie-0.1.0-py3-none-any.whl[serve]'`` for a wheel or folder that
is still there, and the plain ``pip install 'reverie[serve]'`` only when the record names no
local source. When the wheel or folder is gone (built in a temporary folder, since deleted),
no reverie source resolves, so the hint names the extra's own requirements as this install's
metadata lists them (``pip install 'mcp<3,>=2.3' ...``): those come from the package index.

Pure of side effects: the record is read on the first hint (an error path), never at import.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import metadata
from pathlib import Path
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
    if not Path(source).exists():
        return "pip install " + " ".join(f"'{r}'" for r in requirements_of(extra))
    return f"pip install {'-e ' if editable else ''}'{source}[{extra}]'"


def requirements_of(extra: str) -> list[str]:
    """The requirements the installed reverie lists for ``extra`` (its markers dropped)."""
    try:
        listed = metadata.distribution("reverie").requires or []
    except metadata.PackageNotFoundError:
        listed = []
    marker = re.compile(rf"""extra\s*==\s*["']{re.escape(extra)}["']""")
    found = [r.partition(";")[0].strip() for r in listed if marker.search(r.partition(";")[2])]
    return found or [f"reverie[{extra}]"]


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
