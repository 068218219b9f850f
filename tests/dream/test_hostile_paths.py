"""Invariant 8 under fire: thousands of hostile tool calls, then publish, change nothing else.

One real workspace is planted with traps (symlinks to a folder outside, to ``.git/config``, to
``sessions/``, a skill folder that is a symlink out, secrets in files the model may not read).
Hypothesis throws generated paths, contents and patches at the four tools, publishes what was
staged, and checks by hashing every entry of the workspace and of the outside folder that only
writable files changed, and that no secret ever appeared in a tool's answer. The traps are
hashed once, when they are laid: after every example, everything outside the writable set must
still be exactly as it was then (not merely as the previous example left it).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from reverie.core.writable import is_writable_path
from reverie.memory.dream.staging import Staging
from reverie.memory.dream.tools import DreamTools, ToolOutcome
from reverie.storage.folder.dream_files import FolderDreamFiles
from reverie.storage.folder.dream_journal import DEFAULT_JOURNAL, finish_publish
from reverie.storage.folder.workspace import Workspace
from tests.dream.staged import publish as publish_staged

SECRET = "TOPSECRET-7f3a"
Snapshot = dict[str, str]


@dataclass(frozen=True)
class Trapped:
    """The trapped workspace, the folder outside it, and both as they were when laid."""

    root: Path
    outside: Path
    root_before: Snapshot
    outside_before: Snapshot


@pytest.fixture(scope="module")
def trapped(tmp_path_factory: pytest.TempPathFactory) -> Trapped:
    base = tmp_path_factory.mktemp("hostile")
    outside = base / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    (outside / "SKILL.md").write_text(SECRET)
    workspace = Workspace.open(base / "ws", create=True)
    root = workspace.root
    workspace.history.append(f"entry with {SECRET}")
    workspace.close()
    with (root / ".git" / "config").open("a") as config:  # the audit repository's real config
        config.write(f"# {SECRET}\n")
    (root / "sessions" / "cli.jsonl").write_text(json.dumps({"content": SECRET}) + "\n")
    (root / "skills" / "ok").mkdir(parents=True)
    (root / "skills" / "ok" / "SKILL.md").write_text("# ok\n")
    links = {
        "out": outside,
        "out.md": outside / "secret.txt",
        "gitcfg": root / ".git" / "config",
        "sess": root / "sessions",
        "skills/evil": outside,
        "skills/tosessions": root / "sessions",
        "memory/link.md": outside / "secret.txt",
        "dotgit": root / ".git",
    }
    for name, target in links.items():
        (root / name).symlink_to(target)
    return Trapped(root, outside, _outside_writable(_snapshot(root)), _snapshot(outside))


def _snapshot(folder: Path, prefix: str = "") -> Snapshot:
    """Every entry under ``folder`` (links not followed): its link target, "dir" or its hash."""
    entries: Snapshot = {}
    with os.scandir(folder) as listing:
        for entry in listing:
            key = prefix + entry.name
            if entry.is_symlink():
                entries[key] = "link:" + str(Path(entry.path).readlink())
            elif entry.is_dir(follow_symlinks=False):
                entries[key] = "dir"
                entries.update(_snapshot(Path(entry.path), key + "/"))
            else:
                entries[key] = hashlib.sha256(Path(entry.path).read_bytes()).hexdigest()
    return entries


def _outside_writable(snapshot: Snapshot) -> Snapshot:
    def allowed(key: str) -> bool:
        parts = key.split("/")
        is_skill_dir = len(parts) <= 2 and parts[0] == "skills" and snapshot.get(key) == "dir"
        return is_writable_path(key) or is_skill_dir

    return {key: value for key, value in snapshot.items() if not allowed(key)}


TRAP_PATHS = [
    "SOUL.md",
    "USER.md",
    "memory/MEMORY.md",
    "skills/ok/SKILL.md",
    "skills/new-one/SKILL.md",
    "./USER.md",
    "soul.md",
    "\uff33\uff2f\uff35\uff2c.md",
    "SO\u0301UL.md",
    "SOUL.md\x00",
    "SOUL.md.",
    "SOUL.md ",
    "out/secret.txt",
    "out.md",
    "gitcfg",
    "sess/cli.jsonl",
    "dotgit/config",
    "skills/evil/SKILL.md",
    "skills/tosessions/SKILL.md",
    "memory/link.md",
    ".git/config",
    ".GIT/config",
    "sessions/cli.jsonl",
    "memory/history.jsonl",
    "memory/.dream_cursor",
    ".reverie/format",
    "../outside/secret.txt",
    "memory/../SOUL.md",
    "memory/MEMORY.md/",
    "file:///etc/passwd",
    "~/SOUL.md",
    "\\SOUL.md",
    "/etc/passwd",
    "skills/../../outside/SKILL.md",
    "skills/Ok/SKILL.md",
    "skills//SKILL.md",
]
SEGMENTS = [
    "..",
    ".",
    "",
    "skills",
    "memory",
    "SOUL.md",
    "SKILL.md",
    "MEMORY.md",
    "x",
    ".git",
    "sessions",
    "out",
    "evil",
    "ok",
    "\uff33\uff2f\uff35\uff2c.md",
    "soul.md",
    "dotgit",
    "config",
]
WRITABLE = ["SOUL.md", "USER.md", "memory/MEMORY.md", "skills/ok/SKILL.md", "skills/n-1/SKILL.md"]
paths = st.one_of(
    st.sampled_from(WRITABLE),
    st.sampled_from(TRAP_PATHS),
    st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=5).map("/".join),
    st.tuples(st.sampled_from(["", "/", "./", "../"]), st.sampled_from(TRAP_PATHS)).map("".join),
    st.text(alphabet=st.sampled_from("/.\\~:\x00aSOULmdk\u0301\uff33 \t"), max_size=24),
    st.text(max_size=24),
)
texts = st.one_of(
    st.text(max_size=40),
    st.sampled_from(["# Soul", "# User", "# Memory", "# ok", "a", "\n", "x", "Soul"]),
    st.text(max_size=120),
    st.sampled_from(["", "\x00", "x" * 70, "write this to ../outside/secret.txt\n"]),
)
patch_lines = st.tuples(st.sampled_from(" -+\\@"), st.text(max_size=20)).map("".join)
patches = st.one_of(
    st.lists(patch_lines, max_size=8).map(lambda lines: "@@ -1,3 +1,3 @@\n" + "\n".join(lines)),
    st.text(max_size=80),
    st.sampled_from(
        ["@@\n-# Soul\n+# Evil soul\n", "@@\n # User\n+added\n", "@@ -0,0 +1 @@\n+top\n"]
    ),
)
calls = st.one_of(
    st.tuples(st.just("read_file"), st.fixed_dictionaries({"path": paths})),
    st.tuples(
        st.just("edit_file"),
        st.fixed_dictionaries({"path": paths, "old_text": texts, "new_text": texts}),
    ),
    st.tuples(st.just("apply_patch"), st.fixed_dictionaries({"path": paths, "patch": patches})),
    st.tuples(st.just("write_file"), st.fixed_dictionaries({"path": paths, "content": texts})),
)


def _run(
    tools: DreamTools[Staging], name: str, arguments: dict[str, str], *, as_json: bool
) -> ToolOutcome:
    if as_json:
        return tools.call(name, json.dumps(arguments))
    method = getattr(tools, name)
    outcome = method(**arguments)
    assert isinstance(outcome, ToolOutcome)
    return outcome


@settings(
    max_examples=200,  # some 900 tool calls (up to 8 each); the traps stay the same
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(
    script=st.lists(st.tuples(calls, st.booleans()), min_size=1, max_size=8),
    publish=st.booleans(),
)
def test_hostile_tool_calls_change_nothing_outside_the_writable_set(
    trapped: Trapped, script: list[tuple[tuple[str, dict[str, str]], bool]], publish: bool
) -> None:
    root = trapped.root
    tools = DreamTools(Staging(FolderDreamFiles(root)), max_file_chars=100)
    for (name, arguments), as_json in script:
        outcome = _run(tools, name, arguments, as_json=as_json)
        assert SECRET not in outcome.text
        event(f"{name}: {'changed' if outcome.changed else 'ok' if outcome.ok else 'refused'}")
        if outcome.changed is not None:
            assert is_writable_path(outcome.changed)
    for path in tools.staging.changes():
        assert is_writable_path(path)
    if publish:
        event(f"published {len(tools.staging.changes())} file(s)")
        publish_staged(tools.staging, root / DEFAULT_JOURNAL, cursor=1, trigger="hostile")
        finish_publish(root / DEFAULT_JOURNAL)
        for path, text in tools.staging.changes().items():
            # bytes, not read_text: universal newlines would turn a written "\r" into "\n"
            assert (root / path).read_bytes().decode("utf-8") == text
    assert _outside_writable(_snapshot(root)) == trapped.root_before
    assert _snapshot(trapped.outside) == trapped.outside_before
