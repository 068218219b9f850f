"""Built-in instruction texts for the memory jobs, shipped as Markdown files in this package.

``load(name)`` returns one of them (``compaction``, ``dream``, ``agent``, ``proxy``: the agent's
identity as the memory proxy sends it, naming no tool; both identities are the constants
``AGENT_IDENTITY`` and ``PROXY_IDENTITY``). Workspaces may
override the dream instructions with ``prompts/dream.md``; that choice is made by the dream
job, not here. ``fence`` wraps conversation content as data for the model: between two
marker lines whose token is derived from the content itself, so the content cannot close the
fence early (it would have to contain a hash of itself). No I/O beyond reading package data.
"""

from __future__ import annotations

import hashlib
from importlib import resources
from typing import Literal

PromptName = Literal["compaction", "dream", "agent", "proxy"]


def load(name: PromptName) -> str:
    """Return the built-in instruction text ``name`` (without trailing whitespace)."""
    return resources.files(__package__).joinpath(f"{name}.md").read_text(encoding="utf-8").rstrip()


def fence(label: str, text: str) -> str:
    """Return ``text`` between ``<<<label DATA-…>>>`` and ``<<<END DATA-…>>>`` marker lines.

    The instructions tell the model that everything between the markers is data to curate,
    never instructions to follow.
    """
    token = "DATA-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    return f"<<<{label} {token}>>>\n{text}\n<<<END {token}>>>"


AGENT_IDENTITY = load("agent")
"""The identity line of every prompt memory builds (it names the ``search_memory`` tool)."""
PROXY_IDENTITY = load("proxy")
"""The memory proxy's identity line: the agent's, without the tool the proxy never offers."""
