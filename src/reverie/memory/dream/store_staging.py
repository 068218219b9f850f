"""The staging copy of a database workspace's writable files: ``Overlay`` over the seam.

``StoreStaging`` keeps the run's edits in memory over the durable files
(``MemoryFilesPort``, by name) and the skill files (``SkillFilesPort``, by canonical path);
nothing reaches the stores until the run publishes through ``DreamStores.publish_dream``,
which checks every changed file is still its ``base`` text. Paths go through ``confine``'s
text rules (``Overlay.resolve``); there is no filesystem to check. The model may read only
the writable files here: a database workspace holds no other file (no ``prompts/``, no
sessions folder), so any other path is refused with a reason the model can read.
"""

from __future__ import annotations

from reverie.errors import ConfinementError
from reverie.memory.dream.overlay import Overlay
from reverie.storage.folder.memory_files import RELATIVE_PATHS
from reverie.storage.ports import MemoryFilesPort, SkillFilesPort

_NAMES = {path: name for name, path in RELATIVE_PATHS.items()}


class StoreStaging(Overlay):
    """An in-memory overlay of a database workspace's durable and skill files."""

    def __init__(self, files: MemoryFilesPort, skills: SkillFilesPort) -> None:
        super().__init__()
        self.files = files
        self.skills = skills

    def read_other(self, raw_path: str, max_chars: int) -> bytes:  # noqa: ARG002
        """Refuse: only the writable files exist in a database workspace."""
        raise ConfinementError(
            "not readable: this workspace lives in a database and holds only SOUL.md, USER.md, "
            "memory/MEMORY.md and skills/<name>/SKILL.md",
            path=raw_path,
        )

    def skill_paths(self) -> list[str]:
        """The skill files the store holds."""
        return self.skills.paths()

    def _load(self, canonical: str) -> str:
        name = _NAMES.get(canonical)
        return self.files.read(name) if name is not None else self.skills.read(canonical)
