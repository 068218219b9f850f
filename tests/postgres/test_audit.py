"""The PostgreSQL audit trail: commits from the real diff, log, show, file_at, restore."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest

from reverie.errors import RevisionNotFoundError
from reverie.storage.postgres.audit import PgAudit
from reverie.storage.postgres.database import Tenant
from reverie.storage.postgres.files import PgDreamCursor, PgMemoryFiles
from reverie.storage.postgres.history import PgHistoryLog
from reverie.storage.postgres.leases import LeaseLostError, PgLeases


def test_commit_records_the_real_diff_and_is_a_no_op_when_nothing_changed(
    tenant: Tenant,
) -> None:
    files, audit = PgMemoryFiles(tenant), PgAudit(tenant)
    files.write("USER", "# User\n\n- Lives in Porto\n")
    made = audit.commit("dream: model said it rewrote everything")
    assert made is not None
    assert made.subject == "dream: model said it rewrote everything"
    assert [(f.path, f.added, f.removed) for f in made.files] == [("USER.md", 3, 0)]
    assert "+- Lives in Porto" in made.message
    assert made.author == "reverie <reverie@localhost>"
    assert audit.commit("again") is None
    assert audit.commit("forget: nothing", allow_empty=True) is not None
    assert [c.subject for c in audit.log()] == ["forget: nothing", made.subject]


def test_show_file_at_and_revisions(tenant: Tenant) -> None:
    files, audit = PgMemoryFiles(tenant), PgAudit(tenant)
    files.write("MEMORY", "v1\n")
    first = audit.commit("one")
    files.write("MEMORY", "v2\n")
    audit.commit("two", author="Ada")
    assert first is not None
    assert audit.file_at("HEAD~1", "memory/MEMORY.md") == b"v1\n"
    assert audit.file_at(first.short, "memory/MEMORY.md") == b"v1\n"
    assert audit.file_at("HEAD", "SOUL.md") is None
    detail = audit.show("HEAD")
    assert "-v1" in detail.diff
    assert "+v2" in detail.diff
    assert detail.info.author == "Ada <ada@localhost>"
    for bad in ("HEAD~2", "zzzz", "HEAD~-1", "abc"):
        with pytest.raises(RevisionNotFoundError):
            audit.show(bad)


def test_restore_rolls_files_and_dream_cursor_back_as_a_new_commit(tenant: Tenant) -> None:
    files, audit, cursor = PgMemoryFiles(tenant), PgAudit(tenant), PgDreamCursor(tenant)
    log = PgHistoryLog(tenant)
    for i in range(5):
        log.append(f"e{i}")
    files.write("USER", "old fact\n")
    cursor.write(2)
    audit.commit("dream: first")
    files.write("USER", "new fact\n")
    files.write("SOUL", "be brief\n")
    cursor.write(5)
    audit.commit("dream: second")
    files.write("USER", "edited by hand, not committed\n")
    restored = audit.restore("HEAD~1")
    assert restored.subject.startswith("restore: ")
    assert files.read("USER") == "old fact\n"
    assert files.read("SOUL") == ""
    assert cursor.read() == 2
    subjects = [c.subject for c in audit.log()]
    assert subjects[1] == "snapshot: uncommitted changes before restore"
    assert audit.file_at("HEAD~1", "USER.md") == b"edited by hand, not committed\n"
    assert audit.pending_diff().changed is False


def test_commits_from_many_threads_are_numbered_one_after_another(tenant: Tenant) -> None:
    files, audit = PgMemoryFiles(tenant), PgAudit(tenant)

    def edit(i: int) -> None:
        files.write("MEMORY", f"fact {i}\n")
        audit.commit(f"edit {i}")

    threads = [threading.Thread(target=edit, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    log = audit.log(50)
    assert 1 <= len(log) <= 6
    assert len({c.sha for c in log}) == len(log)
    assert audit.pending_diff().changed is False


def test_line_origins_purge_and_objects_holding(tenant: Tenant) -> None:
    files, audit = PgMemoryFiles(tenant), PgAudit(tenant)
    files.write("USER", "likes tea\n")
    first = audit.commit("one")
    files.write("USER", "likes tea\nlocker 4817\n")
    second = audit.commit("two")
    assert first is not None
    assert second is not None
    origins = audit.line_origins({"USER.md": files.read("USER")})["USER.md"]
    assert [o.sha for o in origins] == [first.sha, second.sha]
    assert audit.objects_holding(lambda b: b"4817" in b) == [f"{second.sha}:USER.md", second.sha]
    changed = audit.purge(
        lambda _path, data: data.replace(b"4817", b"[gone]"), lambda t: t.replace("4817", "")
    )
    assert changed == 2
    assert audit.objects_holding(lambda b: b"4817" in b) == []


def test_a_publish_after_the_lease_was_taken_over_writes_nothing(tenant: Tenant) -> None:
    log, files, audit = PgHistoryLog(tenant), PgMemoryFiles(tenant), PgAudit(tenant)
    for i in range(3):
        log.append(f"e{i}")
    paused = PgLeases(tenant, holder="paused-server")
    lease = paused.acquire("dream", timedelta(milliseconds=100))
    assert lease is not None
    time.sleep(0.2)  # a long pause: the lease expires, another server takes over
    assert PgLeases(tenant, holder="other").acquire("dream", timedelta(seconds=5)) is not None
    with pytest.raises(LeaseLostError):
        audit.publish(
            {"memory/MEMORY.md": "stale dream\n"},
            subject="dream: 1-3",
            dream_cursor=3,
            fence=lambda conn: paused.fence(conn, lease),
        )
    assert files.read("MEMORY") == ""
    assert PgDreamCursor(tenant).read() == 0
    assert audit.log() == []
    made = audit.publish({"memory/MEMORY.md": "fresh\n"}, subject="dream: 1-3", dream_cursor=3)
    assert made is not None
    assert [f.path for f in made.files] == ["memory/.dream_cursor", "memory/MEMORY.md"]
