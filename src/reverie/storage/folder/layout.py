"""The workspace layout: every path reverie uses, what each one is, and the link rule.

This module is the one place that says which paths a workspace has (relative to its root),
which are *durable* (curated memory sent with prompts), *writable by dream*, *audited* (kept in
git), and the rule every read and write obeys::

    no component of a path reverie reads or writes may be a symlink that leaves the workspace,
    and no file reverie writes may be a hard link (its text may belong to a file elsewhere).

Symlinks that stay inside the workspace are followed (a person may organise their files);
dream's confinement is stricter still (no symlink at all on a path it writes, see
``reverie.storage.folder.confine``). ``check_path`` applies the rule to one path and raises
``OutsideLinkError`` naming it; ``check_writable_on_disk`` is dream's stricter form for a path
it writes (no symlink at all, raising ``ConfinementError``); ``check_git`` applies the rule inside
``.git`` (a symlinked ``objects/``, ``refs/`` or ``logs/`` folder would take every commit
elsewhere; object files are never rewritten, so only folders are looked at there);
``find_unsafe_links`` lists every breach in a workspace, for ``doctor``. Every file of ``CHECKED``
is one reverie writes (appended, updated in place, or replaced), so a hard link on any of them is
refused: an append or an in-place update (history, ``.cursor``, the SQLite files) would change the
linked file elsewhere too. Checks and uses are not atomic: defending against a hostile local user
who can already write the workspace is out of scope; the rule stops a workspace that was *set up*
with links (an imported folder, a synced directory) from reaching files elsewhere.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from reverie.core.durable import DREAM_CURSOR as DURABLE_DREAM_CURSOR
from reverie.core.durable import RELATIVE_PATHS
from reverie.core.writable import SKILL_FILE
from reverie.errors import ConfinementError, OutsideLinkError

SOUL = RELATIVE_PATHS["SOUL"]
USER = RELATIVE_PATHS["USER"]
MEMORY_DIR = "memory"
MEMORY = RELATIVE_PATHS["MEMORY"]
HISTORY = "memory/history.jsonl"
CURSOR = "memory/.cursor"
DREAM_CURSOR = DURABLE_DREAM_CURSOR
QUARANTINE = "memory/history.quarantine.jsonl"
LEDGER = "memory/ledger.jsonl"
SESSIONS = "sessions"
SKILLS = "skills"
PROMPT_OVERRIDE = "prompts/dream.md"
CONFIG = "reverie.toml"
STATE = ".reverie"
LOCKS = ".reverie/locks"
FORMAT = ".reverie/format"
REJECTED_RULES = ".reverie/rejected-rules.jsonl"
AUDIT_ROOT = ".reverie/audit-root"
SESSIONS_QUARANTINE = ".reverie/sessions.quarantine.jsonl"
HISTORY_CHECKED = ".reverie/history.checked"
SEARCH_INDEX = ".reverie/search.sqlite"
VECTORS = ".reverie/vectors.sqlite"
"""Dense recall's vectors (the ``embeddings`` extra), beside the search index."""
SEARCH_INDEX_MOVED = "search.sqlite.corrupt-*"
"""Damaged search indexes moved aside, in ``STATE`` (a glob pattern)."""
DREAM_STATE = ".reverie/dream-state.json"
DREAM_JOURNAL = ".reverie/dream-publish.json"
PROVENANCE = ".reverie/provenance.json"
INGEST_MARKER = ".reverie/ingest.json"
IMPORTED = ".reverie/imported.json"
SESSIONS_DB = ".reverie/sessions.sqlite3"
GIT = ".git"
GIT_INIT_SCRATCH = ".reverie-git-init"
"""Where a new audit repository is made before one rename puts its ``.git`` in place."""

DURABLE: tuple[str, ...] = (SOUL, USER, MEMORY)
"""The curated files every prompt carries (plus ``skills/<name>/SKILL.md``)."""
AUDITED: tuple[str, ...] = (SOUL, USER, MEMORY, DREAM_CURSOR)
"""The fixed paths the audit repository commits (plus skill files)."""
APPENDED: tuple[str, ...] = (HISTORY, LEDGER, QUARANTINE)
"""Logs reverie appends to."""
SQLITE_FILES: tuple[str, ...] = tuple(
    f"{database}{end}"
    for database in (SESSIONS_DB, SEARCH_INDEX, VECTORS)
    for end in ("", "-wal", "-shm", "-journal")
)
"""The SQLite databases of ``.reverie/`` and the files SQLite writes beside them."""
CHECKED: tuple[str, ...] = (
    *DURABLE,
    HISTORY,
    CURSOR,
    DREAM_CURSOR,
    QUARANTINE,
    LEDGER,
    SESSIONS,
    SKILLS,
    PROMPT_OVERRIDE,
    CONFIG,
    STATE,
    LOCKS,
    FORMAT,
    REJECTED_RULES,
    AUDIT_ROOT,
    SESSIONS_QUARANTINE,
    HISTORY_CHECKED,
    DREAM_STATE,
    DREAM_JOURNAL,
    PROVENANCE,
    INGEST_MARKER,
    IMPORTED,
    *SQLITE_FILES,
    GIT,
)
"""Every fixed path ``find_unsafe_links`` inspects (skill folders and journals are added);
each file of it is written by reverie, so none may be a hard link."""
GIT_WRITTEN: tuple[str, ...] = ("objects", "refs", "logs", "info")
"""The folders of ``.git`` whose every folder below ``check_git`` inspects (``objects``: only
its own entries, each a fan-out folder or ``pack``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class UnsafeLink:
    """A path of the workspace that breaks the link rule, where it leads, and how to fix it."""

    path: str
    target: str
    reason: str
    fix: str = "replace it with the file or folder itself"


def check_path(root: Path, relative: str, *, write: bool = False) -> Path:
    """Return ``root/relative`` when reverie may use it; refuse a link that leaves the workspace.

    Args:
        root: the workspace folder.
        relative: a layout path (``"/"``-separated, relative to the root).
        write: the path will be written: a hard-linked file is refused too.

    Raises:
        OutsideLinkError: a component is a symlink leading outside the workspace, or (for a
            write) the file is hard-linked.
    """
    problem = _problem(root, relative, write=write)
    if problem is not None:
        raise OutsideLinkError(
            problem.reason, path=root / problem.path, target=problem.target, root=root
        )
    return root / relative


def check_writable_on_disk(root: Path, canonical: str) -> None:
    """Refuse a canonical writable path whose existing components are not plain folders/files.

    Raises:
        ConfinementError: a component is a symlink or of the wrong kind, or the real path is
            not ``realpath(root)/canonical``.
    """
    real_root = Path(os.path.realpath(root))
    parts = canonical.split("/")
    current = real_root
    for index, part in enumerate(parts):
        current = current / part
        try:
            info = current.lstat()
        except FileNotFoundError:
            break
        except OSError as exc:
            raise ConfinementError(
                f"cannot inspect {part!r} ({exc.strerror})", path=canonical
            ) from exc
        is_last = index == len(parts) - 1
        if stat.S_ISLNK(info.st_mode):
            raise ConfinementError("a component of this path is a symlink", path=canonical)
        if not is_last and not stat.S_ISDIR(info.st_mode):
            raise ConfinementError(f"{part!r} exists and is not a folder", path=canonical)
        if is_last and not stat.S_ISREG(info.st_mode):
            raise ConfinementError("exists and is not a regular file", path=canonical)
        if is_last and info.st_nlink > 1:
            raise ConfinementError("the file is hard-linked; refusing to touch it", path=canonical)
    if Path(os.path.realpath(real_root / canonical)) != real_root.joinpath(*parts):
        raise ConfinementError("resolves outside its place in the workspace", path=canonical)


def skill_files(root: Path) -> list[str]:
    """The ``skills/<name>/SKILL.md`` paths that exist as regular files through no link at all.

    A skill folder or file that is a symlink (even one staying inside) is never listed, so it
    is never shown, tracked, committed or deleted by a restore.
    """
    folder = root / SKILLS
    if folder.is_symlink() or not folder.is_dir():
        return []
    found: list[str] = []
    for child in sorted(folder.iterdir()):
        relative = f"{SKILLS}/{child.name}/SKILL.md"
        if SKILL_FILE.fullmatch(relative) is None or child.is_symlink() or not child.is_dir():
            continue
        skill = child / "SKILL.md"
        if not skill.is_symlink() and skill.is_file():
            found.append(relative)
    return found


def check_git(root: Path) -> None:
    """Refuse a symlink leading outside anywhere reverie writes inside ``.git``.

    Raises:
        OutsideLinkError: ``.git`` or a folder below it is a symlink leading outside.
    """
    for problem in _git_problems(root):
        raise OutsideLinkError(
            problem.reason, path=root / problem.path, target=problem.target, root=root
        )


def find_unsafe_links(root: Path) -> list[UnsafeLink]:
    """Every layout path (and skill folder, session journal, ``.git`` folder) breaking the rule."""
    found: dict[str, UnsafeLink] = {}
    for relative in _inspected(root):
        problem = _problem(root, relative, write=True)
        if problem is not None:
            found.setdefault(problem.path, problem)
    for problem in _git_problems(root):
        found.setdefault(problem.path, problem)
    return sorted(found.values(), key=lambda link: link.path)


def _git_problems(root: Path) -> Iterator[UnsafeLink]:
    """The symlinks leading outside among ``.git``'s entries and the folders reverie writes."""
    git = root / GIT
    if git.is_symlink() or not git.is_dir():
        return  # a symlinked .git is ``_problem``'s; a .git file is the audit's to refuse
    pending = [GIT]
    while pending:
        folder = pending.pop()
        try:
            entries = sorted(os.scandir(root / folder), key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in entries:
            relative = f"{folder}/{entry.name}"
            if entry.is_symlink():
                problem = _problem(root, relative, write=False)
                if problem is not None:
                    yield problem
            elif entry.is_dir(follow_symlinks=False) and _descend(relative):
                pending.append(relative)


def _descend(relative: str) -> bool:
    """Whether ``check_git`` looks inside this ``.git`` folder (never an object fan-out)."""
    parts = relative.split("/")[1:]
    if parts[0] not in GIT_WRITTEN:
        return False
    return parts[0] != "objects" or len(parts) == 1


def _inspected(root: Path) -> Iterator[str]:
    yield from CHECKED
    for folder in (SKILLS, SESSIONS):
        try:
            children = sorted((root / folder).iterdir())
        except OSError:
            continue
        for child in children:
            yield f"{folder}/{child.name}"
            if folder == SKILLS:
                yield f"{folder}/{child.name}/SKILL.md"


def _problem(root: Path, relative: str, *, write: bool) -> UnsafeLink | None:
    """The first component of ``relative`` that breaks the link rule (None: none does).

    One ``lstat`` a component; the root's real path is resolved only when a component is a
    symlink (resolving it walks every component of the root: most of a check's cost).
    """
    real_root: Path | None = None
    current = os.fspath(root)
    parts = relative.split("/")
    for index, part in enumerate(parts):
        if part in ("", "."):  # as pathlib joins them: no component
            continue
        current = f"{current}/{part}"
        try:
            info = os.lstat(current)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            return UnsafeLink(
                path=relative, target="?", reason=f"cannot inspect ({exc.strerror})", fix="look"
            )
        if stat.S_ISLNK(info.st_mode):
            real_root = real_root or Path(os.path.realpath(root))
            target = Path(os.path.realpath(current))
            if target != real_root and not target.is_relative_to(real_root):
                return UnsafeLink(
                    path="/".join(parts[: index + 1]),
                    target=str(target),
                    reason="is a symlink leading outside the workspace",
                )
        elif write and index == len(parts) - 1 and stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
            return UnsafeLink(
                path="/".join(parts[: index + 1]),
                target=f"{info.st_nlink} names for one file",
                reason="is a hard link, so a write would change its other names too",
                fix="make it a copy of its own",
            )
    return None
