"""Rewriting the audit history so no commit holds a forgotten text (``forget --purge``).

``purge_history`` is the one place reverie rewrites git history, and only on a person's
explicit ``forget --purge``. Every commit reachable from a ref is rebuilt, parents first:

- every blob of its tree goes through ``scrub`` with its path (lines holding the text are
  dropped; the caller leaves files such as the dream cursor alone);
- its message is rebuilt the way every audit message is built (DESIGN.md invariant 9): the
  subject (short shas of rewritten commits mapped to their new ones, the text removed), a
  blank line, and the stat block and diff of the *new* tree against the new parent's;
- author, committer and times are kept.

Then every ref moves to its rewritten commit, the reflogs go (they name the old commits),
and a garbage collection with no grace period packs the reachable objects into one new pack
and deletes every other pack and loose object. After it, no object in ``.git`` (loose or
packed, compressed or not) holds the old blobs or messages. The caller holds the audit lock.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from dulwich.gc import garbage_collect
from dulwich.objects import Blob, Commit, ObjectID, Tree
from dulwich.refs import Ref
from dulwich.repo import Repo

from reverie.core.audit import SHORT_SHA_LENGTH
from reverie.core.diff import commit_body
from reverie.storage.folder.audit_commits import subject_of, tree_diff

Scrub = Callable[[str, bytes], bytes]
"""Returns a blob's bytes (given its path in the tree) without the forgotten text."""


def purge_history(repo: Repo, git_dir: Path, scrub: Scrub, scrub_text: Callable[[str], str]) -> int:
    """Rewrite every reachable commit through ``scrub``; return how many commits changed.

    Args:
        repo: the open audit repository.
        git_dir: its ``.git`` folder (for the reflogs).
        scrub: applied to every blob.
        scrub_text: applied to every commit subject.
    """
    mapping: dict[ObjectID, ObjectID] = {}
    trees: dict[tuple[str, ObjectID], ObjectID] = {}
    changed = 0
    for commit in _parents_first(repo):
        rebuilt = _rebuild(repo, commit, mapping, trees, scrub, scrub_text)
        mapping[commit.id] = rebuilt.id
        changed += rebuilt.id != commit.id
    for ref in repo.refs.allkeys():
        raw = repo.refs.read_ref(ref)
        if raw is None or raw.startswith(b"ref: "):  # symbolic (HEAD): follows its target
            continue
        old = repo.refs[ref]
        if old in mapping and mapping[old] != old:
            repo.refs.set_if_equals(ref, old, mapping[old])
    shutil.rmtree(git_dir / "logs", ignore_errors=True)
    garbage_collect(repo, prune=True, grace_period=None)
    return changed


def _parents_first(repo: Repo) -> list[Commit]:
    tips = []
    for ref in repo.refs.allkeys():
        try:
            tips.append(repo.refs[Ref(ref)])
        except KeyError:
            continue
    order: list[Commit] = []
    seen: set[ObjectID] = set()
    stack: list[tuple[ObjectID, bool]] = [(tip, False) for tip in tips]
    while stack:
        sha, expanded = stack.pop()
        if expanded:
            commit = repo[sha]
            if isinstance(commit, Commit):
                order.append(commit)
            continue
        if sha in seen:
            continue
        seen.add(sha)
        obj = repo[sha]
        if not isinstance(obj, Commit):
            continue
        stack.append((sha, True))
        stack.extend((parent, False) for parent in obj.parents if parent not in seen)
    return order


def _rebuild(
    repo: Repo,
    commit: Commit,
    mapping: dict[ObjectID, ObjectID],
    trees: dict[tuple[str, ObjectID], ObjectID],
    scrub: Scrub,
    scrub_text: Callable[[str], str],
) -> Commit:
    tree = _tree(repo, commit.tree, "", trees, scrub)
    parents = [mapping.get(p, p) for p in commit.parents]
    original = commit.message.decode("utf-8", errors="replace")
    if tree == commit.tree and parents == commit.parents and scrub_text(original) == original:
        return commit
    parent = repo[parents[0]] if parents else None
    base = parent.tree if isinstance(parent, Commit) else None
    subject = subject_of(commit)
    for old, new in mapping.items():
        short = old.decode("ascii")[:SHORT_SHA_LENGTH]
        subject = subject.replace(short, new.decode("ascii")[:SHORT_SHA_LENGTH])
    message = f"{scrub_text(subject) or 'commit'}\n\n{commit_body(tree_diff(repo, base, tree))}"
    rebuilt = Commit()
    rebuilt.tree = tree
    rebuilt.parents = parents
    rebuilt.author, rebuilt.committer = commit.author, commit.committer
    rebuilt.author_time, rebuilt.commit_time = commit.author_time, commit.commit_time
    rebuilt.author_timezone = commit.author_timezone
    rebuilt.commit_timezone = commit.commit_timezone
    rebuilt.message = message.encode("utf-8")
    repo.object_store.add_object(rebuilt)
    return rebuilt


def _tree(
    repo: Repo,
    sha: ObjectID,
    prefix: str,
    trees: dict[tuple[str, ObjectID], ObjectID],
    scrub: Scrub,
) -> ObjectID:
    if (prefix, sha) in trees:
        return trees[(prefix, sha)]
    old = repo[sha]
    assert isinstance(old, Tree)
    new = Tree()
    for entry in old.items():
        assert entry.path is not None
        assert entry.sha is not None
        assert entry.mode is not None
        path = prefix + entry.path.decode("utf-8", errors="replace")
        child = repo[entry.sha]
        if isinstance(child, Tree):
            new.add(entry.path, entry.mode, _tree(repo, entry.sha, path + "/", trees, scrub))
        elif isinstance(child, Blob):
            blob = Blob.from_string(scrub(path, child.as_raw_string()))
            repo.object_store.add_object(blob)
            new.add(entry.path, entry.mode, blob.id)
        else:
            new.add(entry.path, entry.mode, entry.sha)
    repo.object_store.add_object(new)
    trees[(prefix, sha)] = new.id
    return new.id
