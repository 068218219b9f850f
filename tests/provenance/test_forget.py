"""Forgetting: a fact, what it came from and what it led to go; everything else stays."""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path

import pytest

from reverie import MemoryEngine, ScriptedProvider
from reverie.core.tombstones import FORGOTTEN
from reverie.testing.folders import workspace_of
from tests.conftest import StepClock
from tests.dream.scripting import edit
from tests.provenance.build import MOVE, PORTO, SISTER, bullets, converse, model_free, scripted


def _traces(root: Path, text: str) -> list[str]:
    """Every place under ``root`` whose bytes hold ``text`` (any case): raw, zlib and packed."""
    forms = {text.encode(), text.lower().encode(), text.upper().encode()}
    found = []
    for folder, _dirs, names in os.walk(root):
        for name in names:
            path = Path(folder) / name
            data = path.read_bytes()
            for chunk in (data, *_inflated(data)):
                if any(form in chunk or form in chunk.lower() for form in forms):
                    found.append(str(path.relative_to(root)))
                    break
    return found


def _inflated(data: bytes) -> list[bytes]:
    """Every zlib stream that starts anywhere in ``data`` (loose objects and pack entries)."""
    streams = []
    for start in range(len(data) - 1):
        if data[start] != 0x78:
            continue
        inflater = zlib.decompressobj()
        try:
            streams.append(inflater.decompress(data[start:], 1 << 20))
        except zlib.error:
            continue
    return streams


def _two_people(tmp_path: Path, clock: StepClock) -> MemoryEngine:
    engine = model_free(tmp_path, clock)
    converse(engine, "cli:me", PORTO)
    converse(engine, "cli:sis", SISTER)
    assert engine.dream().outcome == "completed"
    return engine


def _history_lines(engine: MemoryEngine) -> list[dict[str, object]]:
    path = Path(engine.location) / "memory" / "history.jsonl"
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def test_forget_removes_the_line_cuts_the_entry_and_tombstones_the_message(
    tmp_path: Path, clock: StepClock
) -> None:
    engine = _two_people(tmp_path, clock)
    assert engine.search("Porto")
    plan = engine.forget_plan("Porto")
    assert [line.reason for line in plan.lines] == ["matches"]
    report = engine.forget("Porto")
    assert report.removed
    assert report.commit is not None
    assert not any("Porto" in line for line in bullets(engine))
    assert any("biologist" in line for line in bullets(engine))  # same entry, other fact
    assert any("cello" in line for line in bullets(engine))  # other session untouched
    entries = _history_lines(engine)
    assert [e["cursor"] for e in entries] == [1, 2]
    assert "Porto" not in str(entries[0]["content"])
    assert "biologist" in str(entries[0]["content"])
    session = engine.session("cli:me")
    assert session.messages[2].content == FORGOTTEN
    assert session.messages[2].role == "user"
    assert len(session.messages) == len(PORTO)
    assert session.messages[4].content == PORTO[4]["content"]
    assert engine.search("Porto") == []
    assert engine.search("cello")
    assert engine.why("Porto").lines == ()
    [head] = engine.log(1)
    assert head.subject.startswith("forget: 1 line(s), entries #1, messages cli:me#2")
    assert engine.doctor().ok


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


def test_cursors_stay_valid_and_are_never_reused_after_forgetting_the_last_entry(
    tmp_path: Path, clock: StepClock
) -> None:
    engine = _two_people(tmp_path, clock)
    converse(engine, "cli:me", MOVE)
    assert engine.forget("Braga").removed
    assert [e["cursor"] for e in _history_lines(engine)] == [1, 2]
    assert engine.history(since=1)[0].cursor == 2
    assert engine.history(since=2) == []
    entry = workspace_of(engine).history.append("a new entry", session_key="cli:me")
    assert entry.cursor == 4
    assert (Path(engine.location) / "memory" / ".cursor").read_text().strip() == "4"
    assert engine.dream().outcome == "completed"
    assert engine.doctor().ok


def test_forget_with_nothing_to_forget_changes_nothing(tmp_path: Path, clock: StepClock) -> None:
    engine = _two_people(tmp_path, clock)
    before = engine.log(5)
    report = engine.forget("Reykjavik")
    assert not report.removed
    assert report.commit is None
    assert engine.log(5) == before


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
    assert _traces(root, "Porto")

    report = engine.forget("Porto", purge=True)

    assert report.purge is not None
    assert report.purge.clean, report.purge
    engine.close()
    assert _traces(root, "Porto") == []
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
    assert _traces(root, "Porto") == []
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


def test_forget_purge_of_chinese_text_leaves_no_byte_in_any_encoding(
    tmp_path: Path, clock: StepClock
) -> None:
    engine = model_free(tmp_path, clock)
    converse(engine, "wx:li", [{"role": "user", "content": "我住在上海，我是一名医生。"}])
    converse(engine, "wx:li", [{"role": "user", "content": "我喜欢喝绿茶。"}])
    engine.dream()
    engine.search("上海")
    root = Path(engine.location)
    assert _traces(root, "上海")
    report = engine.forget("上海", purge=True)
    assert report.purge is not None
    assert report.purge.clean, report.purge
    engine.close()
    escaped = json.dumps("上海")[1:-1]
    assert _traces(root, "上海") == []
    assert _traces(root, escaped) == []
    engine = model_free(tmp_path, clock)
    assert any("绿茶" in line for line in bullets(engine))
    assert engine.doctor().ok


def test_purge_after_a_plain_forget_still_scrubs_the_audit_history(
    tmp_path: Path, clock: StepClock
) -> None:
    engine = _two_people(tmp_path, clock)
    engine.forget("Porto")
    assert _traces(Path(engine.location) / ".git", "Porto")  # the audit keeps the old lines
    report = engine.forget("Porto", purge=True)
    assert not report.removed
    assert report.purge is not None
    assert report.purge.clean
    engine.close()
    assert _traces(tmp_path / "ws", "Porto") == []
