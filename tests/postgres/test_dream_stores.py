"""What dream adds to a PostgreSQL workspace: skill files, the back-off state, a fenced publish."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest

from reverie.errors import DreamError
from reverie.storage.postgres.backend import PgBackend


@pytest.fixture
def backend(pg_url: str) -> Iterator[PgBackend]:
    opened = PgBackend.open(pg_url, f"ds-{secrets.token_hex(5)}", create=True)
    yield opened
    opened.close()


def test_skill_files_are_audited_rows_of_their_workspace_only(
    backend: PgBackend, pg_url: str
) -> None:
    backend.skills.write("skills/tea/SKILL.md", "# Tea\n")
    backend.files.write("USER", "# User\n")
    assert backend.skills.paths() == ["skills/tea/SKILL.md"]
    assert backend.skills.read("skills/tea/SKILL.md") == "# Tea\n"
    assert backend.skills.read("skills/none/SKILL.md") == ""
    commit = backend.audit.commit("edit: skills")
    assert commit is not None
    assert "skills/tea/SKILL.md" in {f.path for f in commit.files}
    for bad in ("USER.md", "skills/../SOUL.md", "skills/Tea/SKILL.md", "skills/tea/notes.md"):
        with pytest.raises(ValueError, match="not a skill file path"):
            backend.skills.write(bad, "x")
    other = PgBackend.open(pg_url, f"ds-{secrets.token_hex(5)}", create=True)
    try:
        assert other.skills.paths() == []
    finally:
        other.close()


def test_the_back_off_state_is_one_text_per_workspace(backend: PgBackend) -> None:
    assert backend.dream_state.read_text() is None
    backend.dream_state.write_text('{"format": "reverie-dream-state"}\n')
    assert backend.dream_state.read_text() == '{"format": "reverie-dream-state"}\n'


def test_a_publish_outside_the_dream_lock_writes_nothing(backend: PgBackend) -> None:
    backend.history.append("an entry")
    with pytest.raises(DreamError, match="lock was lost"):
        backend.publish_dream(
            {"USER.md": "# User\n- x\n"},
            bases={"USER.md": ""},
            trigger="manual",
            dream_cursor=1,
            expected_cursor=0,
        )
    assert backend.files.read("USER") == ""
    assert backend.audit.log() == []
