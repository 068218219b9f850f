from __future__ import annotations

import hashlib
import itertools
import re
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from dulwich import porcelain
from dulwich.objects import Blob, Commit
from dulwich.refs import Ref
from dulwich.repo import Repo

from reverie import AuditError, CommitInfo, RevisionNotFoundError
from reverie.core.diff import DIFF_CAP_CHARS
from reverie.storage.folder.audit import IDENTITY, SNAPSHOT_SUBJECT, TRACKED_PATHS, AuditRepo
from reverie.storage.folder.locks import ProcessLock
from reverie.storage.folder.workspace import Workspace
from tests.conftest import StepClock

STARTS = {
    "SOUL.md": "# Soul\nBe brief.\n",
    "USER.md": "# User\nName: Ada.\n",
    "memory/MEMORY.md": "# Memory\n",
    "memory/.dream_cursor": "0",
}


def write(root: Path, relative: str, text: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def open_audit(root: Path, clock: StepClock) -> AuditRepo:
    (root / ".reverie").mkdir(parents=True, exist_ok=True)
    return AuditRepo(root, lock=ProcessLock(root / ".reverie" / "audit.lock"), clock=clock)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    for relative, text in STARTS.items():
        write(workspace, relative, text)
    return workspace


@pytest.fixture
def audit(root: Path, clock: StepClock) -> Iterator[AuditRepo]:
    repo = open_audit(root, clock)
    repo.ensure()
    yield repo
    repo.close()


def head_sha(root: Path) -> bytes:
    with Repo(str(root)) as repo:
        return repo.head()


def git_dir_digest(git_dir: Path) -> str:
    """A digest of every file under a .git folder: names and bytes."""
    digest = hashlib.sha256()
    for path in sorted(p for p in git_dir.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(git_dir)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def dulwich_commit(repo: Repo, paths: list[str], message: bytes, author: bytes) -> bytes:
    worktree = repo.get_worktree()
    worktree.stage(paths)
    return worktree.commit(
        message=message, author=author, committer=author, no_verify=True, sign=False
    )


# -- ensure -----------------------------------------------------------------------------------


def test_ensure_makes_one_initial_commit_of_the_tracked_files_that_exist(
    tmp_path: Path, clock: StepClock
) -> None:
    root = tmp_path / "ws"
    write(root, "SOUL.md", "soul\n")
    write(root, "memory/.dream_cursor", "3")
    audit = open_audit(root, clock)
    audit.ensure()
    audit.ensure()
    [init] = audit.log()
    assert init.subject == "init: workspace"
    assert [change.path for change in init.files] == ["SOUL.md", "memory/.dream_cursor"]
    assert (root / ".git" / "objects").is_dir()


def test_ensure_in_an_empty_folder_commits_an_empty_tree(tmp_path: Path, clock: StepClock) -> None:
    audit = open_audit(tmp_path / "ws", clock)
    audit.ensure()
    [init] = audit.log()
    assert init.files == ()
    assert init.message == "init: workspace\n\nno file changed\n"


def test_ensure_translates_a_failed_init(tmp_path: Path, clock: StepClock) -> None:
    audit = AuditRepo(tmp_path / "missing", lock=ProcessLock(tmp_path / "a.lock"), clock=clock)
    with pytest.raises(AuditError, match="cannot create") as caught:
        audit.ensure()
    assert isinstance(caught.value.__cause__, OSError)


def test_ensure_replaces_an_older_reverie_exclude_block(root: Path, clock: StepClock) -> None:
    Repo.init(str(root)).close()
    old_block = "# >>> reverie: old wording\n/old-rule\n# <<< reverie\n"
    write(root, ".git/info/exclude", f"*.bak\n{old_block}*.tmp\n")
    audit = open_audit(root, clock)
    audit.ensure()
    audit.ensure()
    exclude = (root / ".git" / "info" / "exclude").read_text()
    assert "/old-rule" not in exclude
    assert exclude.count("# >>> reverie") == 1
    assert exclude.startswith("*.bak\n*.tmp\n")


def test_operations_before_ensure_raise_audit_error(root: Path, clock: StepClock) -> None:
    audit = open_audit(root, clock)
    with pytest.raises(AuditError, match="no audit repository"):
        audit.log()


def damage_head(git_dir: Path) -> None:
    Repo.init(str(git_dir.parent)).close()
    (git_dir / "HEAD").write_text("garbage\n")


def damage_objects(git_dir: Path) -> None:
    git_dir.mkdir()


def damage_gitfile(git_dir: Path) -> None:
    git_dir.write_text("gitdir: ../nowhere\n")


def damage_gitfile_garbage(git_dir: Path) -> None:
    git_dir.write_text("not a gitdir line\n")


def damage_head_names_a_blob(git_dir: Path) -> None:
    with Repo.init(str(git_dir.parent)) as repo:
        blob = Blob.from_string(b"not a commit\n")
        repo.object_store.add_object(blob)
        repo.refs[Ref(b"HEAD")] = blob.id


@pytest.mark.parametrize(
    "damage",
    [damage_head, damage_objects, damage_gitfile, damage_gitfile_garbage, damage_head_names_a_blob],
)
def test_a_damaged_git_dir_raises_audit_error(
    root: Path, clock: StepClock, damage: Callable[[Path], None]
) -> None:
    damage(root / ".git")
    audit = open_audit(root, clock)
    with pytest.raises(AuditError):
        audit.ensure()
    with pytest.raises(AuditError):
        audit.commit("x")


def test_workspace_open_creates_the_audit_repo_once(tmp_path: Path, clock: StepClock) -> None:
    first = Workspace.open(tmp_path / "ws", create=True, clock=clock)
    first.close()
    again = Workspace.open(tmp_path / "ws", clock=clock)
    assert [info.subject for info in again.audit.log()] == ["init: workspace"]
    assert {change.path for change in again.audit.log()[0].files} == set(TRACKED_PATHS)
    again.close()


# -- commit -----------------------------------------------------------------------------------


def test_commit_message_is_built_from_the_real_diff(root: Path, audit: AuditRepo) -> None:
    write(root, "SOUL.md", "# Soul\nBe kind.\nAnswer in English.\n")
    write(root, "memory/.dream_cursor", "5")
    info = audit.commit("dream: the model says it rewrote USER.md")
    assert info is not None
    assert info.files == audit.show(info.sha).info.files
    assert [(f.path, f.added, f.removed) for f in info.files] == [
        ("SOUL.md", 2, 1),
        ("memory/.dream_cursor", 1, 1),
    ]
    subject, blank, *body = info.message.split("\n")
    assert (subject, blank) == ("dream: the model says it rewrote USER.md", "")
    assert re.search(r"^SOUL\.md +\| \+2 -1$", info.message, re.MULTILINE)
    assert re.search(r"^memory/\.dream_cursor \| \+1 -1$", info.message, re.MULTILINE)
    assert "2 files changed, +3 -2" in body
    for line in ("-Be brief.", "+Be kind.", "+Answer in English.", "-0", "+5"):
        assert line in body
    assert "USER.md" not in "\n".join(body)  # only what really changed


def test_commit_metadata_uses_the_injected_clock_and_reverie_identity(root: Path) -> None:
    start = datetime(2026, 3, 1, 12, 30, tzinfo=timezone(timedelta(hours=2)))
    audit = open_audit(root, StepClock(start, timedelta(minutes=1)))
    audit.ensure()
    write(root, "USER.md", "# User\nName: Ada Lovelace.\n")
    info = audit.commit("edit user")
    assert info is not None
    assert info.time == start + timedelta(minutes=1)
    assert info.time.utcoffset() == timedelta(hours=2)
    assert info.short == info.sha[:7]
    with Repo(str(root)) as repo:
        commit = repo[info.sha.encode()]
        assert isinstance(commit, Commit)
        assert commit.author == commit.committer == IDENTITY


def test_a_huge_diff_is_capped_in_the_message_but_complete_in_show(
    root: Path, audit: AuditRepo
) -> None:
    write(root, "memory/MEMORY.md", "".join(f"fact number {i}\n" for i in range(5000)))
    info = audit.commit("dream: many facts")
    assert info is not None
    assert info.files[0].added == 5000
    assert len(info.message) < DIFF_CAP_CHARS + 500
    last = info.message.rstrip("\n").split("\n")[-1]
    match = re.fullmatch(r"\[\.\.\. (\d+) more diff lines not shown\]", last)
    assert match is not None
    full = audit.show(info.sha).diff
    shown = info.message.split("\n\n", 2)[2].rstrip("\n").split("\n")[:-1]
    assert len(shown) + int(match.group(1)) == len(full.rstrip("\n").split("\n"))
    assert "+fact number 4999" in full
    assert "+fact number 4999" not in info.message


def test_commit_without_changes_returns_none_and_makes_no_commit(
    root: Path, audit: AuditRepo
) -> None:
    before = head_sha(root)
    assert audit.commit("dream: nothing happened") is None
    assert head_sha(root) == before
    assert len(audit.log()) == 1


def test_a_removed_file_is_committed_as_a_deletion(root: Path, audit: AuditRepo) -> None:
    (root / "USER.md").unlink()
    info = audit.commit("drop user")
    assert info is not None
    assert [(f.path, f.added, f.removed) for f in info.files] == [("USER.md", 0, 2)]
    assert "+++ /dev/null" in audit.show("HEAD").diff


def test_untracked_files_are_never_committed(root: Path, audit: AuditRepo) -> None:
    write(root, "notes.txt", "private\n")
    write(root, "memory/history.jsonl", '{"cursor": 1}\n')
    write(root, "skills/a/notes.md", "# not a skill file\n")
    write(root, "skills/Bad Name/SKILL.md", "# not a valid skill name\n")
    assert audit.commit("nothing tracked changed") is None
    assert audit.pending_diff().files == ()


def test_skill_files_are_tracked_committed_and_restored(root: Path, audit: AuditRepo) -> None:
    write(root, "skills/brew-tea/SKILL.md", "# Brew tea\n1. boil\n")
    first = audit.commit("dream: add a skill")
    assert first is not None
    assert [f.path for f in first.files] == ["skills/brew-tea/SKILL.md"]
    write(root, "skills/brew-tea/SKILL.md", "# Brew tea\n1. boil\n2. steep\n")
    write(root, "skills/ping/SKILL.md", "# Ping\n")
    assert audit.commit("dream: more skills") is not None
    audit.restore(first.sha)
    assert (root / "skills/brew-tea/SKILL.md").read_text() == "# Brew tea\n1. boil\n"
    assert not (root / "skills/ping/SKILL.md").exists()
    (root / "skills/brew-tea/SKILL.md").unlink()
    removed = audit.commit("dream: drop the skill")
    assert removed is not None
    assert [(f.path, f.added) for f in removed.files] == [("skills/brew-tea/SKILL.md", 0)]


def test_subject_is_one_line_and_must_not_be_blank(root: Path, audit: AuditRepo) -> None:
    write(root, "SOUL.md", "changed\n")
    with pytest.raises(ValueError, match="subject"):
        audit.commit("  \n ")
    info = audit.commit("dream:\nsecond line")
    assert info is not None
    assert info.subject == "dream: second line"


def test_pending_diff_shows_uncommitted_changes(root: Path, audit: AuditRepo) -> None:
    assert not audit.pending_diff().changed
    write(root, "memory/MEMORY.md", "# Memory\nThe build uses hatch.\n")
    pending = audit.pending_diff()
    assert [(f.path, f.added, f.removed) for f in pending.files] == [("memory/MEMORY.md", 1, 0)]
    assert "+The build uses hatch." in pending.diff
    info = audit.commit("dream")
    assert info is not None
    assert info.files == pending.files


# -- log and show -----------------------------------------------------------------------------


def test_log_is_newest_first_and_limited(root: Path, audit: AuditRepo) -> None:
    for n in range(1, 4):
        write(root, "memory/.dream_cursor", str(n))
        audit.commit(f"dream {n}")
    assert [info.subject for info in audit.log(2)] == ["dream 3", "dream 2"]
    everything = audit.log()
    assert [info.subject for info in everything] == [
        "dream 3",
        "dream 2",
        "dream 1",
        "init: workspace",
    ]
    assert all(a.time > b.time for a, b in itertools.pairwise(everything))


def test_show_round_trips_log_entries(root: Path, audit: AuditRepo) -> None:
    write(root, "SOUL.md", "# Soul\nBe brief.\nBe kind.\n")
    audit.commit("kinder")
    for info in audit.log():
        detail = audit.show(info.sha)
        assert detail.info == info
        assert audit.show(info.short).info == info
    root_commit = audit.show("HEAD~1")
    assert root_commit.info.subject == "init: workspace"
    assert "--- /dev/null\n+++ b/SOUL.md\n" in root_commit.diff
    assert audit.show("HEAD").diff.startswith("--- a/SOUL.md\n+++ b/SOUL.md\n")


# -- restore ----------------------------------------------------------------------------------


def test_restore_rolls_the_dream_cursor_back_with_the_files(root: Path, audit: AuditRepo) -> None:
    write(root, "memory/.dream_cursor", "5")
    write(root, "memory/MEMORY.md", "# Memory\nfact five\n")
    first = audit.commit("dream: through 5")
    write(root, "memory/.dream_cursor", "9")
    write(root, "memory/MEMORY.md", "# Memory\nfact nine\n")
    second = audit.commit("dream: through 9")
    assert first is not None
    assert second is not None
    restored = audit.restore(first.short)
    assert (root / "memory" / ".dream_cursor").read_text() == "5"
    assert (root / "memory" / "MEMORY.md").read_text() == "# Memory\nfact five\n"
    assert restored.subject == f"restore: {first.short} (dream: through 5)"
    assert [info.sha for info in audit.log(3)] == [restored.sha, second.sha, first.sha]
    assert {f.path for f in restored.files} == {"memory/.dream_cursor", "memory/MEMORY.md"}
    assert not audit.pending_diff().changed


def test_restore_removes_a_file_absent_at_the_revision(tmp_path: Path, clock: StepClock) -> None:
    root = tmp_path / "ws"
    write(root, "SOUL.md", "soul\n")
    audit = open_audit(root, clock)
    audit.ensure()
    write(root, "USER.md", "user\n")
    audit.commit("add user")
    write(root, "USER.md", "user, edited\n")
    assert audit.pending_diff().files[0].removed == 1
    audit.commit("edit user")
    restored = audit.restore("HEAD~2")
    assert not (root / "USER.md").exists()
    assert not audit.pending_diff().changed
    assert [(f.path, f.added, f.removed) for f in restored.files] == [("USER.md", 0, 1)]
    assert audit.restore("HEAD~1").subject.startswith("restore: ")  # and back again
    assert (root / "USER.md").read_text() == "user, edited\n"


def test_restore_to_the_current_state_makes_no_commit(root: Path, audit: AuditRepo) -> None:
    head = audit.log(1)[0]
    assert audit.restore("HEAD") == head
    assert audit.log() == [head]


def test_restore_commits_uncommitted_edits_first(root: Path, audit: AuditRepo) -> None:
    write(root, "SOUL.md", "# Soul\nBe very brief.\n")
    audit.commit("dream")
    write(root, "SOUL.md", "# Soul\nhand edit nobody committed\n")
    audit.restore("HEAD~1")
    subjects = [info.subject for info in audit.log()]
    assert subjects[:2] == [subjects[0], SNAPSHOT_SUBJECT]
    assert "+hand edit nobody committed" in audit.show("HEAD~1").diff
    assert (root / "SOUL.md").read_text() == STARTS["SOUL.md"]


# -- revisions --------------------------------------------------------------------------------


def test_revisions_by_sha_prefix_and_head_offsets(root: Path, audit: AuditRepo) -> None:
    write(root, "SOUL.md", "one\n")
    audit.commit("one")
    write(root, "SOUL.md", "two\n")
    audit.commit("two")
    newest, middle, oldest = audit.log()
    assert audit.show("HEAD").info == newest
    assert audit.show("HEAD~").info == middle
    assert audit.show("HEAD~2").info == oldest
    assert audit.show(oldest.sha.upper()).info == oldest
    assert audit.show(f" {middle.sha[:4]} ").info.sha in {middle.sha}


@pytest.mark.parametrize("revision", ["", "abc", "zzzz", "HEAD~9", "HEAD^", "main", "0" * 40])
def test_bad_revisions_raise(audit: AuditRepo, revision: str) -> None:
    with pytest.raises(RevisionNotFoundError):
        audit.show(revision)
    with pytest.raises(RevisionNotFoundError):
        audit.restore(revision)


def test_a_sha_of_a_non_commit_object_is_not_a_revision(root: Path, audit: AuditRepo) -> None:
    blob = Blob.from_string(STARTS["SOUL.md"].encode())
    with pytest.raises(RevisionNotFoundError):
        audit.show(blob.id.decode())


def test_an_ambiguous_prefix_raises(root: Path, audit: AuditRepo) -> None:
    seen: dict[bytes, Commit] = {}
    with Repo(str(root)) as repo:
        base = repo[repo.head()]
        assert isinstance(base, Commit)
        for n in range(100_000):
            commit = Commit()
            commit.tree = base.tree
            commit.author = commit.committer = IDENTITY
            commit.author_time = commit.commit_time = n
            commit.author_timezone = commit.commit_timezone = 0
            commit.message = b"twin"
            twin = seen.setdefault(commit.id[:4], commit)
            if twin is not commit:
                repo.object_store.add_object(twin)
                repo.object_store.add_object(commit)
                break
    prefix = commit.id[:4].decode()
    with pytest.raises(RevisionNotFoundError):
        audit.show(prefix)
    assert audit.show(commit.id[:12].decode()).info.sha == commit.id.decode()


# -- repository boundaries --------------------------------------------------------------------


def test_a_workspace_inside_another_repo_never_touches_it(tmp_path: Path, clock: StepClock) -> None:
    outer_root = tmp_path / "project"
    write(outer_root, "README.md", "outer\n")
    with Repo.init(str(outer_root), mkdir=False) as outer:
        dulwich_commit(outer, ["README.md"], b"outer commit", b"someone <s@example.org>")
        refs_before = outer.get_refs()
    digest_before = git_dir_digest(outer_root / ".git")

    workspace = Workspace.open(outer_root / "agent", create=True, clock=clock)
    workspace.files.write("SOUL", "# Soul\nnested\n")
    workspace.audit.commit("dream")
    workspace.audit.restore("HEAD~1")
    workspace.close()

    assert git_dir_digest(outer_root / ".git") == digest_before
    with Repo(str(outer_root)) as outer:
        assert outer.get_refs() == refs_before
    assert (outer_root / "agent" / ".git").is_dir()
    assert [info.subject for info in workspace.audit.log()][1:] == ["dream", "init: workspace"]


def test_git_status_shows_only_the_tracked_files(root: Path, audit: AuditRepo) -> None:
    write(root, "memory/history.jsonl", '{"cursor": 1}\n')
    write(root, "memory/.cursor", "1")
    write(root, "sessions/chat.jsonl", "{}\n")
    write(root, "skills/a/notes.md", "# skill notes\n")
    write(root, "notes.txt", "scratch\n")
    status = porcelain.status(str(root), untracked_files="all")
    assert (status.untracked, status.unstaged) == ([], [])
    write(root, "skills/a/SKILL.md", "# skill\n")
    assert porcelain.status(str(root), untracked_files="all").untracked == [b"skills/a/SKILL.md"]
    audit.commit("dream: a skill")
    assert porcelain.status(str(root), untracked_files="all").untracked == []
    assert status.staged == {"add": [], "delete": [], "modify": []}
    write(root, "USER.md", "# User\nchanged\n")
    assert porcelain.status(str(root), untracked_files="all").unstaged == [b"USER.md"]


def test_an_existing_nanobot_repo_is_adopted_with_its_history(
    tmp_path: Path, clock: StepClock
) -> None:
    root = tmp_path / "nanobot"
    for relative in TRACKED_PATHS:
        write(root, relative, STARTS[relative])
    write(root, ".gitignore", "*\n!SOUL.md\n!USER.md\n!memory/\n!memory/MEMORY.md\n")
    with Repo.init(str(root)) as repo:
        paths = [".gitignore", "SOUL.md", "USER.md", "memory/MEMORY.md"]
        nanobot_head = dulwich_commit(repo, paths, b"nanobot: init", b"nanobot <n@localhost>")
    write(root, ".git/info/exclude", "*.bak\n")

    workspace = Workspace.open(root, clock=clock)
    [adopted] = workspace.audit.log()
    assert (adopted.sha.encode(), adopted.subject) == (nanobot_head, "nanobot: init")
    workspace.files.write("MEMORY", "# Memory\nadopted\n")
    info = workspace.audit.commit("dream")
    workspace.close()

    assert info is not None
    assert {f.path for f in info.files} == {"memory/MEMORY.md", "memory/.dream_cursor"}
    with Repo(str(root)) as repo:
        commit = repo[info.sha.encode()]
        assert isinstance(commit, Commit)
        assert commit.parents == [nanobot_head]
        committed = sorted(
            entry.path for entry in repo.object_store.iter_tree_contents(commit.tree)
        )
        assert committed == sorted(path.encode() for path in [*paths, "memory/.dream_cursor"])
    assert (root / ".git" / "info" / "exclude").read_text() == "*.bak\n"


def test_an_adopted_repo_without_commits_gets_the_initial_commit(
    root: Path, clock: StepClock
) -> None:
    Repo.init(str(root)).close()
    audit = open_audit(root, clock)
    assert audit.log() == []
    assert {change.path for change in audit.pending_diff().files} == set(TRACKED_PATHS)
    audit.ensure()
    assert [info.subject for info in audit.log()] == ["init: workspace"]


# -- concurrency ------------------------------------------------------------------------------


@pytest.mark.parametrize("shared", [True, False], ids=["one-object", "one-object-per-thread"])
def test_concurrent_commits_from_threads_keep_a_linear_history(
    root: Path, audit: AuditRepo, clock: StepClock, shared: bool
) -> None:
    made: list[CommitInfo] = []
    done = threading.Lock()

    def work(relative: str) -> None:
        mine = audit if shared else open_audit(root, clock)
        for n in range(15):
            write(root, relative, f"{relative} version {n}\n")
            info = mine.commit(f"{relative} {n}")
            if info is not None:
                with done:
                    made.append(info)

    threads = [threading.Thread(target=work, args=(path,)) for path in ("SOUL.md", "USER.md")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    history = audit.log(1000)
    assert len(history) == len(made) + 1
    assert {info.sha for info in made} == {info.sha for info in history[:-1]}
    with Repo(str(root)) as repo:
        for child, parent in itertools.pairwise(history):
            commit = repo[child.sha.encode()]
            assert isinstance(commit, Commit)
            assert commit.parents == [parent.sha.encode()]
    assert not audit.pending_diff().changed
    assert porcelain.status(str(root)).unstaged == []


def test_commit_times_are_aware(audit: AuditRepo) -> None:
    assert audit.log()[0].time.tzinfo is not None
    assert audit.log()[0].time == datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def test_a_symlinked_skill_folder_is_not_tracked(tmp_path: Path, clock: StepClock) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "SKILL.md").write_text("not ours\n")
    workspace = Workspace.open(tmp_path / "ws", create=True, clock=clock)
    (workspace.root / "skills").mkdir(exist_ok=True)
    (workspace.root / "skills" / "link").symlink_to(outside, target_is_directory=True)
    assert not workspace.audit.pending_diff().changed
    assert workspace.audit.commit("dream") is None
    workspace.close()
