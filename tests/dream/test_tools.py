"""The four dream tools: every outcome, and that no call ever raises or touches the disk."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from reverie.errors import ConfinementError
from reverie.memory.dream.staging import Staging
from reverie.memory.dream.tool_specs import TOOL_SPECS
from reverie.memory.dream.tools import DreamTools, ToolOutcome
from reverie.storage.folder.dream_files import read_regular as _read_regular
from reverie.storage.folder.workspace import Workspace
from tests.dream.staged import root_of


@pytest.fixture
def tools(workspace: Workspace) -> DreamTools[Staging]:
    (workspace.root / "memory" / "MEMORY.md").write_text("# Memory\n\n- tea: green\n- cat: Tom\n")
    return DreamTools(Staging(workspace.dream_files))


def _disk(tools: DreamTools[Staging], path: str) -> str:
    return (root_of(tools.staging) / path).read_text()


def test_read_file_shows_staged_text_for_writable_files(tools: DreamTools[Staging]) -> None:
    assert tools.read_file("memory/MEMORY.md").text.endswith("- cat: Tom\n")
    tools.write_file("memory/MEMORY.md", "staged\n")
    outcome = tools.read_file("./memory/MEMORY.md")
    assert outcome == ToolOutcome(ok=True, text="staged\n")
    assert "does not exist yet" in tools.read_file("skills/x/SKILL.md").text


def test_read_file_reads_other_workspace_text_files(tools: DreamTools[Staging]) -> None:
    root = root_of(tools.staging)
    (root / "prompts").mkdir()
    (root / "prompts" / "dream.md").write_text("instructions")
    (root / "empty.md").write_text("")
    (root / "blob.bin").write_bytes(b"\x00\x01")
    (root / "latin.txt").write_bytes(b"caf\xe9")
    assert tools.read_file("prompts/dream.md") == ToolOutcome(ok=True, text="instructions")
    assert tools.read_file("empty.md").text == "(empty.md is empty)"
    assert not tools.read_file("blob.bin").ok
    assert "not a UTF-8 text file" in tools.read_file("latin.txt").text


def test_long_reads_are_truncated_on_a_character_boundary(workspace: Workspace) -> None:
    (workspace.root / "big.md").write_text("é" * 50)
    tools = DreamTools(Staging(workspace.dream_files), max_read_chars=10)
    outcome = tools.read_file("big.md")
    assert outcome.ok
    assert outcome.text.startswith("é" * 10 + "\n[truncated: showing the first 10")
    tools.write_file("USER.md", "x" * 11)
    assert "[truncated" in tools.read_file("USER.md").text


@pytest.mark.parametrize(
    "path", [".git/config", "sessions/a", "memory/history.jsonl", "../x", "/etc/passwd", "nope.md"]
)
def test_read_file_refusals_are_outcomes(tools: DreamTools[Staging], path: str) -> None:
    outcome = tools.read_file(path)
    assert not outcome.ok
    assert outcome.changed is None
    assert "refused path" in outcome.text


def test_read_file_of_a_symlinked_durable_file_is_refused(
    tools: DreamTools[Staging], tmp_path: Path
) -> None:
    (tmp_path / "secret").write_text("s3cret")
    (root_of(tools.staging) / "USER.md").unlink()
    (root_of(tools.staging) / "USER.md").symlink_to(tmp_path / "secret")
    outcome = tools.read_file("USER.md")
    assert not outcome.ok
    assert "s3cret" not in outcome.text


def test_edit_file_replaces_one_exact_match_in_staging_only(tools: DreamTools[Staging]) -> None:
    outcome = tools.edit_file("memory/MEMORY.md", "- tea: green\n", "- tea: oolong\n")
    assert outcome.ok
    assert outcome.changed == "memory/MEMORY.md"
    assert outcome.text == "edited memory/MEMORY.md (staged): -1 +1 lines, now 35 characters"
    assert outcome.edit is not None
    assert outcome.edit.changed
    assert "oolong" in tools.staging.read("memory/MEMORY.md")
    assert "green" in _disk(tools, "memory/MEMORY.md")


@pytest.mark.parametrize(
    ("old", "message"),
    [
        ("- tea: black", "old_text matches 0 places in memory/MEMORY.md; read the file"),
        ("- ", "old_text matches 2 places in memory/MEMORY.md; include more"),
        ("", "old_text is empty"),
    ],
)
def test_edit_file_needs_exactly_one_match(
    tools: DreamTools[Staging], old: str, message: str
) -> None:
    outcome = tools.edit_file("memory/MEMORY.md", old, "x")
    assert not outcome.ok
    assert message in outcome.text
    assert tools.staging.changes() == {}


def test_overlapping_matches_count_as_several(tools: DreamTools[Staging]) -> None:
    tools.write_file("SOUL.md", "aaa")
    assert "matches 2 places" in tools.edit_file("SOUL.md", "aa", "b").text


def test_an_edit_that_changes_nothing_says_so(tools: DreamTools[Staging]) -> None:
    outcome = tools.edit_file("memory/MEMORY.md", "tea", "tea")
    assert outcome.ok
    assert outcome.changed is None
    assert outcome.edit is not None
    assert not outcome.edit.changed
    assert outcome.text.startswith("no change")


def test_apply_patch_applies_or_explains(tools: DreamTools[Staging]) -> None:
    good = tools.apply_patch(
        "memory/MEMORY.md", "@@ -3,2 +3,2 @@\n-- tea: green\n+- tea: none\n - cat: Tom\n"
    )
    assert good.ok
    assert good.changed == "memory/MEMORY.md"
    bad = tools.apply_patch("memory/MEMORY.md", "@@ -3 +3 @@\n-- dog: Rex\n+- dog: Max\n")
    assert not bad.ok
    assert bad.text.startswith("patch not applied to memory/MEMORY.md: hunk 1")


def test_write_file_creates_a_skill_in_staging(tools: DreamTools[Staging]) -> None:
    outcome = tools.write_file("skills/brew-tea/SKILL.md", "# Brew tea\n")
    assert outcome.ok
    assert outcome.text.startswith("created skills/brew-tea/SKILL.md")
    assert not (root_of(tools.staging) / "skills").exists()


@pytest.mark.parametrize(
    ("path", "content", "message"),
    [
        ("SOUL.md", "a\x00b", "NUL character"),
        ("SOUL.md", "\ud800", "unpaired surrogates"),
        ("SOUL.md", "x" * 65, "would be 65 characters; the limit is 64"),
        ("memory/history.jsonl", "{}", "not writable"),
        ("soul.md", "x", "did you mean 'SOUL.md'"),
        ("../SOUL.md", "x", "'..' is not allowed"),
    ],
)
def test_write_file_refusals_are_outcomes(
    workspace: Workspace, path: str, content: str, message: str
) -> None:
    tools = DreamTools(Staging(workspace.dream_files), max_file_chars=64)
    outcome = tools.write_file(path, content)
    assert not outcome.ok
    assert message in outcome.text
    assert outcome.changed is None
    assert outcome.edit is None


def test_a_file_over_the_cap_may_still_shrink(workspace: Workspace) -> None:
    (workspace.root / "SOUL.md").write_text("head\n" + "x" * 100)
    tools = DreamTools(Staging(workspace.dream_files), max_file_chars=64)
    assert tools.edit_file("SOUL.md", "head\n", "").ok
    assert not tools.write_file("SOUL.md", "y" * 101).ok


def test_a_durable_file_that_is_not_text_is_an_outcome(tools: DreamTools[Staging]) -> None:
    (root_of(tools.staging) / "USER.md").write_bytes(b"\xff")
    for outcome in (tools.read_file("USER.md"), tools.write_file("USER.md", "x")):
        assert not outcome.ok
        assert "not UTF-8" in outcome.text


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("delete_file", "{}", "unknown tool 'delete_file'; the tools are read_file, edit_file"),
        ("read_file", "{not json", "arguments are not valid JSON"),
        ("read_file", "[]", "arguments must be a JSON object"),
        ("read_file", "{}", "missing argument(s) path"),
        ("read_file", '{"path": "SOUL.md", "mode": "w"}', "unexpected argument(s) mode"),
        ("write_file", '{"path": "SOUL.md", "content": 5}', "argument(s) content must be strings"),
        ("read_file", "[" * 100_000, "not valid JSON"),
    ],
)
def test_call_turns_bad_arguments_into_outcomes(
    tools: DreamTools[Staging], name: str, arguments: str, message: str
) -> None:
    outcome = tools.call(name, arguments)
    assert not outcome.ok
    assert message in outcome.text


def test_call_dispatches_each_tool(tools: DreamTools[Staging]) -> None:
    assert tools.call("read_file", json.dumps({"path": "USER.md"})).ok
    assert tools.call("write_file", json.dumps({"path": "USER.md", "content": "u\n"})).ok
    edit = {"path": "USER.md", "old_text": "u", "new_text": "v"}
    assert tools.call("edit_file", json.dumps(edit)).ok
    patch = {"path": "USER.md", "patch": "@@\n-v\n+w\n"}
    assert tools.call("apply_patch", json.dumps(patch)).ok
    assert tools.staging.changes() == {"USER.md": "w\n"}


def test_tool_specs_are_json_schema_matching_call() -> None:
    assert [spec.name for spec in TOOL_SPECS] == [
        "read_file",
        "edit_file",
        "apply_patch",
        "write_file",
    ]
    for spec in TOOL_SPECS:
        schema = spec.parameters
        json.dumps(schema)
        assert schema["type"] == "object"
        assert schema["additionalProperties"] is False
        assert schema["required"] == list(spec.required)
        properties = schema["properties"]
        assert isinstance(properties, dict)
        assert set(properties) == set(spec.required)
        assert spec.description


def test_a_fifo_swapped_in_after_the_check_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(ConfinementError, match="not a regular file"):
        _read_regular(fifo, 100)


def test_a_fifo_in_the_workspace_is_not_readable(tools: DreamTools[Staging]) -> None:
    os.mkfifo(root_of(tools.staging) / "pipe")
    outcome = tools.read_file("pipe")
    assert not outcome.ok
    assert "not a regular file" in outcome.text
