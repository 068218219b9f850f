"""Line ages in the audit repository: which commit last added each line of a tracked file.

A small, line-level blame. For each line of a file's current text it walks first parents back
from HEAD and finds the oldest commit of the unbroken run (ending at HEAD) whose version of
the file holds that line, i.e. when the line was last added. A line is matched by its exact
text, anywhere in the file: moving a line does not make it younger, and editing it does. It
also owns turning a person's name into a git identity for the commits a person makes.

Invariants: it only reads the repository; the walk is bounded by ``depth`` commits, and a line
still present in the oldest version read is reported with ``at_or_before`` set, never with a
made-up date; a line that no commit holds (edited on disk, not committed) has no commit.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING

from dulwich.objects import Tree

from reverie.core.audit import LineOrigin
from reverie.storage.folder.audit_commits import first_parent, head_commit, subject_of

if TYPE_CHECKING:
    from collections.abc import Mapping

    from dulwich.objects import Commit, ObjectID
    from dulwich.repo import Repo


def line_origins(
    repo: Repo, texts: Mapping[str, str], *, depth: int
) -> dict[str, tuple[LineOrigin, ...]]:
    """Return, per path, one ``LineOrigin`` per line of its text (see the module docstring).

    One walk serves every path: each commit and its tree are read once, and a file's text is
    decoded once per distinct blob.

    Args:
        repo: the audit repository.
        texts: each file's path in the repository (``memory/MEMORY.md``) and current text.
        depth: how many commits to read back from HEAD at most.
    """
    versions = _versions(repo, list(texts), depth)
    reached_root = len(versions) < depth
    return {
        path: _origins(
            text, [(commit, held[path]) for commit, held in versions], reached_root=reached_root
        )
        for path, text in texts.items()
    }


def _origins(
    text: str, versions: list[tuple[Commit, frozenset[str]]], *, reached_root: bool
) -> tuple[LineOrigin, ...]:
    origins: dict[str, LineOrigin] = {}
    for line in text.splitlines():
        if line in origins or not line.strip():
            continue
        run = 0
        while run < len(versions) and line in versions[run][1]:
            run += 1
        if run == 0:
            origins[line] = LineOrigin(line=line)
            continue
        # Held by every version read: when the walk stopped short of the root, it may be older.
        older = run == len(versions) and not reached_root
        origins[line] = _origin(line, versions[run - 1][0], at_or_before=older)
    return tuple(origins.get(line, LineOrigin(line=line)) for line in text.splitlines())


def _versions(
    repo: Repo, paths: list[str], depth: int
) -> list[tuple[Commit, dict[str, frozenset[str]]]]:
    versions: list[tuple[Commit, dict[str, frozenset[str]]]] = []
    reader = _Reader(repo)
    commit = head_commit(repo)
    while commit is not None and len(versions) < depth:
        versions.append((commit, {path: reader.lines(commit.tree, path) for path in paths}))
        commit = first_parent(repo, commit)
    return versions


class _Reader:
    """Reads file lines out of trees, each tree and each blob once per walk."""

    def __init__(self, repo: Repo) -> None:
        self._store = repo.object_store
        self._trees: dict[bytes, Tree] = {}
        self._blobs: dict[bytes, frozenset[str]] = {}

    def lines(self, tree: ObjectID, path: str) -> frozenset[str]:
        sha: ObjectID = tree
        try:
            for part in path.encode("utf-8").split(b"/"):
                _mode, sha = self._tree(sha)[part]
        except KeyError:
            return frozenset()
        if sha not in self._blobs:
            raw = self._store[sha].as_raw_string()
            self._blobs[sha] = frozenset(raw.decode("utf-8", errors="replace").splitlines())
        return self._blobs[sha]

    def _tree(self, sha: ObjectID) -> Tree:
        if sha not in self._trees:
            found = self._store[sha]
            if not isinstance(found, Tree):
                raise KeyError(sha)  # a file where a folder should be: the path is absent
            self._trees[sha] = found
        return self._trees[sha]


def _origin(line: str, commit: Commit, *, at_or_before: bool = False) -> LineOrigin:
    offset = timezone(timedelta(seconds=commit.author_timezone))
    return LineOrigin(
        line=line,
        sha=commit.id.decode("ascii"),
        subject=subject_of(commit),
        author=bytes(commit.author).decode("utf-8", errors="replace"),
        time=datetime.fromtimestamp(commit.author_time, tz=offset),
        at_or_before=at_or_before,
    )
