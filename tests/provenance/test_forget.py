"""Forgetting: a fact, what it came from and what it led to go; everything else stays.

The scenarios both backends share (forget, cursors after it, nothing to forget, purge after a
plain forget, Chinese text) run on a folder and a database workspace in
``tests/postgres/test_provenance.py``, the folder's byte checks with them; here are the
folder's own and those that need a scripted model.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reverie import MemoryEngine, ScriptedProvider
from reverie.testing.folders import workspace_of
from tests.conftest import StepClock
from tests.dream.scripting import edit
from tests.provenance.build import (
    MOVE,
    PORTO,
    SISTER,
    bullets,
    converse,
    model_free,
    scripted,
    traces,
)


def _two_people(tmp_path: Path, clock: StepClock) -> MemoryEngine:
    engine = model_free(tmp_path, clock)
    converse(engine, "cli:me", PORTO)
    converse(engine, "cli:sis", SISTER)
    assert engine.dream().outcome == "completed"
    return engine


def test_a_line_that_came_only_from_forgotten_entries_goes_too(
    tmp_path: Path, clock: StepClock
) -> None:
    memory = (
        ScriptedProvider()
        .reply("- User lives in Porto.")
        .reply("- User's sister Ana plays the cello in Lisbon.")
        .reply(
            tool_calls=[
                edit("USER.md", "habits.\n", "habits.\n\n- Lives in Porto\n- Likes the sea\n"),
            ]
        )
        .reply("done")
    )
    engine = scripted(tmp_path, clock, memory)
    converse(engine, "tg:1", PORTO)
    converse(engine, "tg:2", SISTER)
    engine.dream()
    # "Likes the sea" was supported by nothing: it cites the whole batch, so it stays.
    assert [line.text for line in engine.forget_plan("Porto").lines] == ["- Lives in Porto"]
    engine.forget("cello", purge=False)
    plan = engine.forget_plan("Porto")
    assert [(line.text, line.reason) for line in plan.lines] == [
        ("- Lives in Porto", "matches"),
        ("- Likes the sea", "led_to"),
    ]


def test_forget_purge_leaves_no_byte_of_the_text_anywhere_and_everything_else_intact(
    tmp_path: Path, clock: StepClock
) -> None:
    engine = _two_people(tmp_path, clock)
    converse(engine, "cli:me", MOVE)  # a correction: "not in Porto any more"
    engine.dream()
    engine.search("Porto")  # the index holds it now
    engine.restore("HEAD~1")  # history of commits with and without it
    engine.dream()
    root = Path(engine.location)
    quarantine = root / "memory" / "history.quarantine.jsonl"
    with (root / "memory" / "history.jsonl").open("ab") as handle:
        handle.write(b'{"cursor": "Porto is here", "content": "bad"}\n')  # quarantined on open
    engine.close()
    engine = model_free(tmp_path, clock)
    assert b"Porto" in quarantine.read_bytes()
    assert traces(root, "Porto")

    report = engine.forget("Porto", purge=True)

    assert report.purge is not None
    assert report.purge.clean, report.purge
    engine.close()
    assert traces(root, "Porto") == []
    engine = model_free(tmp_path, clock)
    assert any("cello" in line for line in bullets(engine))
    assert any("biologist" in line for line in bullets(engine))
    assert engine.search("cello")
    assert engine.session("cli:sis").messages[0].content == SISTER[0]["content"]
    assert engine.doctor().ok
    log = engine.log(20)
    assert log[0].subject.startswith("forget:")
    assert log[-1].subject == "init: workspace"
    assert engine.show("HEAD~1").info.sha == log[1].sha
    engine.restore("HEAD~2")  # the rewritten history still restores
    assert traces(root, "Porto") == []
    converse(engine, "cli:me", [{"role": "user", "content": "I love the cello too."}])
    assert engine.dream().outcome == "completed"


def test_purge_rewrites_subjects_naming_the_text_and_keeps_other_commits(
    tmp_path: Path, clock: StepClock
) -> None:
    engine = _two_people(tmp_path, clock)
    workspace_of(engine).audit.commit("note: nothing about Porto here", allow_empty=True)
    shas = [c.sha for c in engine.log(10)]
    engine.forget("Porto", purge=True)
    subjects = [c.subject for c in engine.log(10)]
    assert "note: nothing about [forgotten] here" in subjects
    assert engine.log(10)[-1].sha == shas[-1]  # the first commit never held it


def test_purging_a_number_leaves_the_audited_dream_cursor_alone(
    tmp_path: Path, clock: StepClock
) -> None:
    engine = model_free(tmp_path, clock)
    workspace = workspace_of(engine)
    for n in range(119):
        workspace.history.append(f"- [durable] User: my locker number is L{n}x.")
    workspace.history.append("- [durable] User: I cycle 120 km to work every week.")
    while workspace.dream_cursor.read() < 120:
        engine.dream()
    assert workspace.dream_cursor.read() == 120
    report = engine.forget("120", purge=True)
    assert report.purge is not None
    engine.restore("HEAD~1")  # the dream commit, rewritten: its cursor is still 120
    assert workspace.dream_cursor.read() == 120
    assert engine.doctor().ok


@pytest.mark.parametrize("query", ["", "   ", "a", " 1 "])
def test_a_blank_text_is_refused(tmp_path: Path, clock: StepClock, query: str) -> None:
    engine = model_free(tmp_path, clock)
    with pytest.raises(ValueError, match="text"):
        engine.forget(query)
