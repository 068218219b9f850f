"""Telling a project's git repository from a memory workspace's: reverie adopts only the latter.

A workspace's ``.git`` is reverie's own audit repository, or one nanobot made, which reverie
adopts with its history. A folder can also hold a *project's* repository (``reverie init`` run
in a code checkout): adopting it would put reverie's commits on the project's branch, write
the project's index and ``info/exclude``, and ``forget --purge`` would rewrite the project's
commits and garbage-collect its objects. So such a repository is refused
(``ForeignRepositoryError``, naming a few of its files), before anything is written.

Why refuse rather than keep reverie's audit elsewhere (a second git folder beside it): the
memory files would then stand untracked in every ``git status`` of the project, a person
reading ``.git`` would find the project's history and not the memory's, and nanobot, which
keeps its own in ``.git``, could not share it. A workspace is one owner's memory in a folder
of its own (``~/.reverie/<name>``); the error says so.

What counts as a memory repository: every path held by HEAD's tree, by the tip of every
branch and by the index is one a memory workspace has (``MEMORY_PATHS``: reverie's audited
files, anything under ``memory/`` and ``skills/``, git's own dotfiles, nanobot's workspace
files). A repository reverie did not create that holds nothing yet (no commit, an empty index,
as right after ``git init``) is judged by the folder instead: it is a project's when the folder
holds anything a memory workspace does not (``src/``, ``README.md``), since adopting it would
write reverie's exclude block (``/*``) into it and hide the project's files from its ``git
status``. A ``.git`` *file* (a linked worktree or submodule of a repository elsewhere) is
refused too: every write would land in that other repository. This module reads only.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from reverie.errors import ForeignRepositoryError
from reverie.storage.folder import layout

if TYPE_CHECKING:
    from dulwich.objects import ObjectID
    from dulwich.repo import Repo

MEMORY_FOLDERS: tuple[str, ...] = (f"{layout.MEMORY_DIR}/", f"{layout.SKILLS}/")
"""Folders whose every file a memory repository may hold."""
MEMORY_PATHS: frozenset[str] = frozenset(
    {
        *layout.AUDITED,
        ".gitignore",
        ".gitattributes",
        "AGENTS.md",  # nanobot's workspace files, beside SOUL.md and USER.md
        "TOOLS.md",
        "HEARTBEAT.md",
        "IDENTITY.md",
    }
)
"""Single files a memory repository may hold."""
SHOWN = 3
"""How many of a foreign repository's paths its error names."""


def is_memory_path(path: str) -> bool:
    """Whether a path of a commit or index belongs to a memory workspace."""
    return path in MEMORY_PATHS or path.startswith(MEMORY_FOLDERS)


FOLDER_NAMES: frozenset[str] = frozenset(
    {
        *(relative.split("/")[0] for relative in (*layout.CHECKED, *MEMORY_PATHS)),
        layout.GIT_INIT_SCRATCH,
        ".nanobot",
    }
)
"""Top-level names a memory workspace's folder holds (its layout, nanobot's files)."""


def refuse_foreign(repo: Repo, root: Path, *, judge_folder: bool = False) -> None:
    """Raise when the open repository at ``root`` holds files no memory workspace has.

    Args:
        repo: the open repository.
        root: the workspace folder.
        judge_folder: the repository was not made by reverie: when it holds nothing yet,
            look at the folder's own entries instead.

    Raises:
        ForeignRepositoryError: HEAD, a branch or the index holds such a file (or, with
            ``judge_folder``, an empty repository's folder does).
    """
    held = False
    foreign: list[str] = []
    for path in _held_paths(repo):
        held = True
        if not is_memory_path(path) and path not in foreign:
            foreign.append(path)
            if len(foreign) == SHOWN:
                break
    if not held and judge_folder:
        foreign = sorted(entry.name for entry in root.iterdir() if entry.name not in FOLDER_NAMES)
    if foreign:
        raise ForeignRepositoryError(foreign_message(foreign[:SHOWN]), path=root / layout.GIT)


def refuse_git_file(root: Path) -> None:
    """Raise when ``root/.git`` is a file: a link to a repository kept elsewhere.

    Raises:
        ForeignRepositoryError: it is a file (``gitdir: ...``).
    """
    git = root / layout.GIT
    if git.is_file() and not git.is_symlink():
        raise ForeignRepositoryError(
            "is a file pointing at a git repository elsewhere (a linked worktree or a "
            "submodule): reverie keeps its audit only in a .git folder of its own; use a "
            "folder of its own for the workspace",
            path=git,
        )


def refuse_foreign_folder(root: Path) -> None:
    """Before laying a workspace out at ``root``: refuse a ``.git`` there that is not memory's.

    A repository that cannot be opened is left to ``AuditRepo.ensure`` to report.

    Raises:
        ForeignRepositoryError: ``root/.git`` is a file, or a project's repository.
    """
    if not (root / layout.GIT).exists():
        return
    refuse_git_file(root)
    from dulwich.errors import NotGitRepository  # noqa: PLC0415 (only when a .git is there)
    from dulwich.repo import Repo  # noqa: PLC0415

    try:
        repo = Repo(str(root), bare=False)
    except (NotGitRepository, OSError, ValueError):
        return
    with repo:
        refuse_foreign(repo, root, judge_folder=True)


def foreign_message(paths: list[str]) -> str:
    """The refusal's text: what the repository holds and what to do instead."""
    shown = ", ".join(paths)
    return (
        f"is a project's git repository, not a memory workspace's (it holds {shown}, ...): "
        "reverie does not adopt it, commit on its branches or rewrite its history; use a "
        "folder of its own for the workspace (e.g. ~/.reverie/<name>)"
    )


def _held_paths(repo: Repo) -> Iterator[str]:
    from dulwich.errors import NoIndexPresent  # noqa: PLC0415 (loaded with the repo)

    for tree in _tips(repo):
        for entry in repo.object_store.iter_tree_contents(tree):
            if entry.path is not None:
                yield entry.path.decode("utf-8", "replace")
    try:
        index = repo.open_index()
    except NoIndexPresent:
        return
    for key in index.paths():
        yield key.decode("utf-8", "replace")


def _tips(repo: Repo) -> Iterator[ObjectID]:
    """The trees of HEAD and of every branch tip (each once)."""
    from dulwich.objects import Commit  # noqa: PLC0415 (dulwich is loaded with the repo)
    from dulwich.refs import Ref  # noqa: PLC0415

    seen: set[bytes] = set()
    branches = repo.refs.keys(base=Ref(b"refs/heads/"))
    for name in [Ref(b"HEAD"), *(Ref(b"refs/heads/" + branch) for branch in branches)]:
        try:
            commit = repo[repo.refs[name]]
        except KeyError:
            continue
        if isinstance(commit, Commit) and commit.tree not in seen:
            seen.add(commit.tree)
            yield commit.tree
