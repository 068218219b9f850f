"""Dream's publish, one contract on two backends: a workspace folder and PostgreSQL.

``DreamStores.publish_dream`` lands the changed files, the dream cursor and one commit
``dream: <trigger>`` as one step, or nothing at all: refused when a file is no longer the text
the run staged from, or when the cursor moved. ``finish_interrupted_publish`` has nothing to do
after a whole publish; doctor finds nothing after one.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from reverie.errors import DreamError, PublishConflictError
from reverie.memory.doctor import examine
from reverie.storage.folder.backend import FileBackend
from reverie.storage.ports import Backend, DreamFilesPort
from reverie.storage.postgres.backend import PgBackend
from reverie.storage.postgres.dream_stores import PgDreamFiles

DREAM_FILES: type[DreamFilesPort] = PgDreamFiles


@pytest.fixture(params=["file", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    opened: Backend
    if request.param == "file":
        opened = FileBackend.open(tmp_path / "ws", create=True)
    else:
        url = request.getfixturevalue("pg_url")
        opened = PgBackend.open(url, f"publish-{secrets.token_hex(5)}", create=True)
    yield opened
    opened.close()


def test_a_publish_over_a_changed_file_writes_nothing_then_one_lands(backend: Backend) -> None:
    backend.history.append("an entry")
    backend.files.write("USER", "# User\n- typed by a person\n")
    commits = len(backend.audit.log(100))
    with backend.lock("dream").hold(timeout=0):
        with pytest.raises(PublishConflictError, match=r"USER\.md"):
            backend.publish_dream(
                {"USER.md": "# User\n- x\n", "skills/a/SKILL.md": "# A\n"},
                bases={"USER.md": "", "skills/a/SKILL.md": ""},
                trigger="manual",
                dream_cursor=1,
                expected_cursor=0,
            )
        assert backend.skills.paths() == []
        assert backend.dream_cursor.read() == 0
        assert len(backend.audit.log(100)) == commits
        done = backend.publish_dream(
            {"USER.md": "# User\n- x\n", "skills/a/SKILL.md": "# A\n"},
            bases={"USER.md": "# User\n- typed by a person\n", "skills/a/SKILL.md": ""},
            trigger="manual",
            dream_cursor=1,
            expected_cursor=0,
        )
        assert backend.finish_interrupted_publish() is False
    assert done is not None
    assert done.subject == "dream: manual"
    assert backend.dream_cursor.read() == 1
    assert backend.files.read("USER") == "# User\n- x\n"
    assert backend.skills.read("skills/a/SKILL.md") == "# A\n"
    assert backend.dream_files.read("skills/a/SKILL.md") == "# A\n"
    assert examine(backend).ok, examine(backend).findings


def test_a_publish_whose_cursor_moved_writes_nothing(backend: Backend) -> None:
    backend.history.append("one")
    backend.history.append("two")
    backend.dream_cursor.write(1)  # another run consumed the batch meanwhile
    with backend.lock("dream").hold(timeout=0), pytest.raises(DreamError, match="cursor"):
        backend.publish_dream(
            {"USER.md": "# User\n- x\n"},
            bases={"USER.md": backend.files.read("USER")},
            trigger="manual",
            dream_cursor=2,
            expected_cursor=0,
        )
    assert backend.dream_cursor.read() == 1
    assert "- x" not in backend.files.read("USER")
