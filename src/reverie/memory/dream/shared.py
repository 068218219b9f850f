"""A person's changes on the storage seam: ``restore`` and an edit of a database workspace.

A folder workspace takes these roads through ``Dreamer`` (``locking``: the dream lock, publish
recovery first) and ``edit``. A database workspace has no folder and no publish journal (a
dream there publishes in one transaction: ``store_runner``), so both are simpler, under the
same ``dream`` lock (on PostgreSQL a lease every server honours), so neither interleaves
with a dream of any server:

- ``restore_on_stores``: the durable files, the skills and the dream cursor back as of a
  commit, as a new commit; refused with ``RestoreWouldLoseError`` when the commit is older
  than a trim, unless forced.
- ``edit_on_stores``: a person's edit of a writable file (SOUL.md, USER.md,
  memory/MEMORY.md, skills/<name>/SKILL.md): the path through ``confine``'s text rules, the
  text cleaned as on a folder, refused when the file changed since ``expected_sha256``, one
  ``edit: <path>`` commit with the person as author, none when nothing changed. Skills are
  the stores' skill files (``reverie.storage.ports.SkillFilesPort``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from reverie.memory.dream.confine import canonical_writable
from reverie.memory.dream.edit import EDIT_LOCK_TIMEOUT, EditResult, check_version, clean_edit
from reverie.memory.dream.rewind import check_rewind
from reverie.storage.folder.audit_commits import CommitInfo
from reverie.storage.folder.audit_lines import person_identity
from reverie.storage.folder.memory_files import RELATIVE_PATHS
from reverie.storage.ports import Stores


def restore_on_stores(stores: Stores, rev: str, *, force: bool = False) -> CommitInfo:
    """Put the durable files and the dream cursor back as of ``rev``, as a new commit.

    Under the dream lease (waiting for a running dream, as on a folder), and refused with
    ``RestoreWouldLoseError`` when ``rev`` is older than a trim, unless ``force``.
    """
    with stores.lock("dream").hold():
        if not force:
            check_rewind(stores, rev)
        return stores.audit.restore(rev)


def edit_on_stores(
    stores: Stores,
    path: str,
    text: str,
    *,
    author: str,
    expected_sha256: str | None = None,
    timeout: float = EDIT_LOCK_TIMEOUT,
) -> EditResult:
    """A person's edit of a writable file, as ``dream.edit.edit_file`` does it on a folder.

    Under the dream lease (a running dream makes it wait up to ``timeout`` seconds), refused
    when the file changed since ``expected_sha256``, one ``edit: <path>`` commit with the
    person as author, none when nothing changed.
    """
    canonical = canonical_writable(path)
    read, write = _file_of(stores, canonical)
    new_text = clean_edit(text, canonical)
    person_identity(author)  # refuse a bad name before anything is written
    with stores.lock("dream").hold(timeout=timeout):
        current = read()
        check_version(current, expected_sha256, canonical)
        if current == new_text:
            return EditResult(path=canonical, commit=None)
        write(new_text)
        return EditResult(
            path=canonical, commit=stores.audit.commit(f"edit: {canonical}", author=author)
        )


def _file_of(stores: Stores, canonical: str) -> tuple[Callable[[], str], Callable[[str], None]]:
    """How to read and write the writable file ``canonical`` on these stores."""
    name = next((n for n, relative in RELATIVE_PATHS.items() if relative == canonical), None)
    if name is not None:
        return partial(stores.files.read, name), partial(stores.files.write, name)
    return partial(stores.skills.read, canonical), partial(stores.skills.write, canonical)
