"""Helpers for dream-run tests: scripted tool calls and whole-tree fingerprints."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
from pathlib import Path

from reverie import ChatRequest, ToolCall

_ids = itertools.count(1)


def call(name: str, **arguments: str) -> ToolCall:
    """A tool call with a fresh id and JSON arguments."""
    return ToolCall(id=f"call-{next(_ids)}", name=name, arguments=json.dumps(arguments))


def edit(path: str, old_text: str, new_text: str) -> ToolCall:
    return call("edit_file", path=path, old_text=old_text, new_text=new_text)


def write(path: str, content: str) -> ToolCall:
    return call("write_file", path=path, content=content)


def tree_hashes(root: Path) -> dict[str, str]:
    """Relative path -> sha256 of every file (symlinks by their target text) under ``root``."""
    found: dict[str, str] = {}
    for folder, dirs, files in os.walk(root):
        for name in files + [d for d in dirs if (Path(folder) / d).is_symlink()]:
            path = Path(folder) / name
            data = str(path.readlink()).encode() if path.is_symlink() else path.read_bytes()
            found[str(path.relative_to(root))] = hashlib.sha256(data).hexdigest()
    return found


def changed_paths(before: dict[str, str], after: dict[str, str]) -> set[str]:
    """Paths added, removed or changed between two ``tree_hashes``."""
    return {path for path in before.keys() | after.keys() if before.get(path) != after.get(path)}


def tool_results(request: ChatRequest) -> list[str]:
    """The texts of the tool messages at the end of a request (the last round's results)."""
    texts: list[str] = []
    for message in reversed(request.messages):
        if message.role != "tool":
            break
        texts.append(message.text)
    return list(reversed(texts))
