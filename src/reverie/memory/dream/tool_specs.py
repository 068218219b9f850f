"""JSON-schema descriptions of the dream tools, as plain data for the model layer to wrap.

This module owns the names, descriptions and argument schemas the dream model sees; it does no
I/O and must not import ``reverie.llm`` (the model loop turns each ``ToolSpec`` into the model
layer's own schema type). The argument names here are the ones ``DreamTools.call`` accepts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reverie.core.messages import JSONObject

_WRITABLE = (
    "Writable paths: SOUL.md, USER.md, memory/MEMORY.md and skills/<name>/SKILL.md "
    "(<name>: lowercase letters, digits, '-' or '_'). Paths are relative to the workspace, "
    "exact and case-sensitive."
)


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolSpec:
    """One tool: its name, what it does, and the JSON schema of its string arguments."""

    name: str
    description: str
    arguments: tuple[tuple[str, str], ...]
    """(argument name, description) pairs; every argument is a required string."""

    @property
    def required(self) -> tuple[str, ...]:
        """The argument names, in order."""
        return tuple(name for name, _ in self.arguments)

    @property
    def parameters(self) -> JSONObject:
        """The JSON schema (type object) of the arguments."""
        properties: JSONObject = {
            name: {"type": "string", "description": description}
            for name, description in self.arguments
        }
        return {
            "type": "object",
            "properties": properties,
            "required": list(self.required),
            "additionalProperties": False,
        }


TOOL_SPECS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="read_file",
        description=(
            "Read a text file of the workspace. For a writable file this shows your staged "
            "edits. Hidden folders, sessions/ and the history log are not readable."
        ),
        arguments=(("path", "Workspace-relative path, e.g. memory/MEMORY.md."),),
    ),
    ToolSpec(
        name="edit_file",
        description=(
            "Replace one exact passage of a writable file. old_text must occur exactly once "
            "(copy it from the file, whitespace included); it is replaced by new_text, which "
            "may be empty to delete the passage. " + _WRITABLE
        ),
        arguments=(
            ("path", "The writable file to edit."),
            ("old_text", "The exact text to replace; must match exactly one place."),
            ("new_text", "The replacement text ('' deletes old_text)."),
        ),
    ),
    ToolSpec(
        name="apply_patch",
        description=(
            "Apply a unified diff to one writable file: hunks starting with '@@ -a,b +c,d @@', "
            "lines starting with ' ' (context), '-' (removed) or '+' (added). Include a few "
            "context lines so each hunk matches exactly one place. " + _WRITABLE
        ),
        arguments=(
            ("path", "The writable file to patch."),
            ("patch", "The unified-diff hunks for that file."),
        ),
    ),
    ToolSpec(
        name="write_file",
        description=(
            "Replace the whole text of a writable file, or create it (for a new skill). "
            "Prefer edit_file or apply_patch for small changes. " + _WRITABLE
        ),
        arguments=(
            ("path", "The writable file to write."),
            ("content", "The complete new text of the file."),
        ),
    ),
)
"""The four dream tools, in the order they should be offered to the model."""
