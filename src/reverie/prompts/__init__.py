"""Built-in instruction texts for the memory jobs, shipped as Markdown files in this package.

``load(name)`` returns one of them (``compaction``, ``dream``, ``agent``). Workspaces may
override the dream instructions with ``prompts/dream.md``; that choice is made by the dream
job, not here. No I/O beyond reading package data.
"""

from __future__ import annotations

from importlib import resources
from typing import Literal

PromptName = Literal["compaction", "dream", "agent"]


def load(name: PromptName) -> str:
    """Return the built-in instruction text ``name`` (without trailing whitespace)."""
    return resources.files(__package__).joinpath(f"{name}.md").read_text(encoding="utf-8").rstrip()
