"""The no-progress detector: repeated edits, undone edits and stalled rounds end the run."""

from __future__ import annotations

import pytest

from reverie.memory.dream.progress import ProgressDetector, ProgressVerdict
from reverie.memory.dream.staging import Staging
from reverie.memory.dream.tools import DreamTools, ToolOutcome
from reverie.storage.folder.workspace import Workspace


@pytest.fixture
def tools(workspace: Workspace) -> DreamTools[Staging]:
    (workspace.root / "USER.md").write_text("name: Ada\n")
    return DreamTools(Staging(workspace.dream_files))


def test_rounds_that_change_files_continue(tools: DreamTools[Staging]) -> None:
    detector = ProgressDetector()
    for n in range(10):
        verdict = detector.observe([tools.write_file("USER.md", f"version {n}\n")])
        assert verdict == ProgressVerdict(outcome="continue")
        assert not verdict.stop


def test_the_same_edit_repeated_stops_the_run(tools: DreamTools[Staging]) -> None:
    detector = ProgressDetector()
    assert not detector.observe([tools.write_file("USER.md", "name: Grace\n")]).stop
    verdict = detector.observe([tools.write_file("USER.md", "name: Grace\n")])
    assert verdict.outcome == "repeated_edit"
    assert verdict.stop
    assert "USER.md" in verdict.detail


def test_a_first_no_op_edit_is_not_a_repeat(tools: DreamTools[Staging]) -> None:
    detector = ProgressDetector()
    assert not detector.observe([tools.write_file("USER.md", "name: Ada\n")]).stop
    assert detector.observe([tools.write_file("USER.md", "name: Ada\n")]).outcome == (
        "repeated_edit"
    )


def test_edits_that_undo_each_other_stop_the_run(tools: DreamTools[Staging]) -> None:
    detector = ProgressDetector()
    assert not detector.observe([tools.edit_file("USER.md", "Ada", "Grace")]).stop
    verdict = detector.observe([tools.edit_file("USER.md", "Grace", "Ada")])
    assert verdict.outcome == "undo"


def test_an_undo_within_one_round_is_caught(tools: DreamTools[Staging]) -> None:
    detector = ProgressDetector()
    round_ = [
        tools.write_file("SOUL.md", "a\n"),
        tools.write_file("SOUL.md", "b\n"),
        tools.write_file("SOUL.md", "a\n"),
    ]
    assert detector.observe(round_).outcome == "undo"


def test_returning_to_an_intermediate_state_is_an_undo(tools: DreamTools[Staging]) -> None:
    detector = ProgressDetector()
    for text in ("one\n", "two\n"):
        assert not detector.observe([tools.write_file("USER.md", text)]).stop
    assert detector.observe([tools.write_file("USER.md", "one\n")]).outcome == "undo"


def test_rounds_without_a_change_stall_after_n(tools: DreamTools[Staging]) -> None:
    detector = ProgressDetector(stall_rounds=3)
    idle_rounds: list[list[ToolOutcome]] = [
        [tools.read_file("USER.md")],
        [tools.edit_file("USER.md", "nope", "x")],
        [],
    ]
    verdicts = [detector.observe(round_) for round_ in idle_rounds]
    assert [v.outcome for v in verdicts] == ["continue", "continue", "stalled"]
    assert verdicts[-1].detail == "no file changed in the last 3 tool rounds"
    later = detector.observe([tools.write_file("USER.md", "fresh\n")])
    assert later.outcome == "stalled"


def test_a_change_resets_the_stall_count(tools: DreamTools[Staging]) -> None:
    detector = ProgressDetector(stall_rounds=2)
    assert not detector.observe([tools.read_file("USER.md")]).stop
    assert not detector.observe([tools.write_file("USER.md", "x\n")]).stop
    assert not detector.observe([tools.read_file("USER.md")]).stop
    assert detector.observe([tools.read_file("USER.md")]).outcome == "stalled"


def test_stall_rounds_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        ProgressDetector(stall_rounds=0)
