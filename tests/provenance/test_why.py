"""Provenance: every dream-written line leads back to its entries and messages, and stays true.

``why`` on a model-free dream runs on a folder and a database workspace in
``tests/postgres/test_provenance.py``; here are the folder's own cases and the scripted ones.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from reverie import AsyncMemoryEngine, LineProvenance, ScriptedProvider, WhyReport
from reverie.testing.folders import workspace_of
from tests.conftest import StepClock
from tests.dream.scripting import edit
from tests.provenance.build import PORTO, SISTER, converse, model_free, scripted


def _only(report: WhyReport) -> LineProvenance:
    assert len(report.lines) == 1, report.to_json()
    return report.lines[0]


def test_why_on_a_scripted_model_dream_follows_the_model_s_edit_to_its_sources(
    tmp_path: Path, clock: StepClock
) -> None:
    memory = (
        ScriptedProvider()
        .reply("- User lives in Porto and works as a marine biologist.")
        .reply("- User's sister Ana plays the cello in Lisbon.")
        .reply(
            tool_calls=[
                edit("USER.md", "habits.\n", "habits.\n\n- Lives in Porto\n- Sister Ana: cellist\n")
            ]
        )
        .reply("done")
    )
    engine = scripted(tmp_path, clock, memory)
    converse(engine, "tg:1", PORTO)
    converse(engine, "tg:2", SISTER)
    result = engine.dream()
    assert result.outcome == "completed", result.reason
    porto = _only(engine.why("Lives in Porto"))
    assert porto.origin == "dream"
    assert [e.session_key for e in porto.entries] == ["tg:1"]
    sister = engine.why("cellist").lines[0]
    assert [e.session_key for e in sister.entries] == ["tg:2"]
    assert [m.text for m in sister.entries[0].messages] == [SISTER[0]["content"]]


def test_a_line_nothing_supports_cites_the_whole_batch(tmp_path: Path, clock: StepClock) -> None:
    memory = (
        ScriptedProvider()
        .reply("- User lives in Porto.")
        .reply("- User's sister plays the cello.")
        .reply(tool_calls=[edit("SOUL.md", "strategy.\n", "strategy.\n\n- Be brief.\n")])
        .reply("done")
    )
    engine = scripted(tmp_path, clock, memory)
    converse(engine, "tg:1", PORTO)
    converse(engine, "tg:2", SISTER)
    assert engine.dream().outcome == "completed"
    line = engine.why("be brief").lines[0]
    assert [e.cursor for e in line.entries] == [1, 2]


def test_a_line_a_person_edits_reads_as_edited_by_hand(tmp_path: Path, clock: StepClock) -> None:
    engine = model_free(tmp_path, clock)
    converse(engine, "cli:me", PORTO)
    engine.dream()
    user = Path(engine.location) / "USER.md"
    text = user.read_text(encoding="utf-8")
    [porto] = [line for line in text.splitlines() if "Porto" in line]
    user.write_text(text.replace(porto, "- Lives in Porto, Portugal (typed by me)"), "utf-8")
    edited = engine.why("Porto").lines[0]
    assert (edited.origin, edited.entries) == ("hand", ())
    assert edited.to_json()["origin"] == "hand"
    biologist = engine.why("biologist").lines[0]
    assert biologist.origin == "dream"  # the untouched line keeps its sources


def test_supersession_carries_the_old_sources_and_restore_brings_the_old_line_back_with_its_own(
    tmp_path: Path, clock: StepClock
) -> None:
    memory = (
        ScriptedProvider()
        .reply("- User lives in Porto.")
        .reply(tool_calls=[edit("USER.md", "habits.\n", "habits.\n\n- Lives in Porto\n")])
        .reply("done")
        .reply("- User moved to Braga, no longer in Porto.")
        .reply(
            tool_calls=[
                edit(
                    "USER.md",
                    "- Lives in Porto\n",
                    "- Lives in Braga (since 2026-11-30; before: Porto)\n",
                )
            ]
        )
        .reply("done")
    )
    engine = scripted(tmp_path, clock, memory)
    converse(engine, "tg:1", PORTO)
    engine.dream()
    converse(engine, "tg:1", [{"role": "user", "content": "I moved to Braga."}])
    assert engine.dream().outcome == "completed"
    braga = engine.why("Braga").lines[0]
    assert [e.cursor for e in braga.entries] == [1, 2]  # the old line's entry, then the new one
    engine.restore("HEAD~1")
    back = engine.why("Lives in Porto").lines[0]
    assert back.origin == "dream"
    assert [e.cursor for e in back.entries] == [1]
    assert back.entries[0].messages[0].text == PORTO[2]["content"]


def test_provenance_survives_restore_and_re_dream(tmp_path: Path, clock: StepClock) -> None:
    engine = model_free(tmp_path, clock)
    converse(engine, "cli:me", PORTO)
    engine.dream()
    before = engine.why("Porto").lines[0]
    engine.restore("HEAD~1")  # the starter files, and the dream cursor back at 0
    assert engine.why("Porto").lines == ()
    assert workspace_of(engine).dream_cursor.read() == 0
    assert engine.dream().outcome == "completed"  # re-dream the same batch
    after = json.loads(json.dumps(engine.why("Porto").to_json()))
    assert [e["cursor"] for e in after["lines"][0]["entries"]] == [e.cursor for e in before.entries]
    assert after["lines"][0]["origin"] == "dream"


def test_a_trimmed_entry_still_names_its_session_and_messages(
    tmp_path: Path, clock: StepClock
) -> None:
    engine = model_free(tmp_path, clock)
    converse(engine, "cli:me", PORTO)
    engine.dream()
    workspace_of(engine).history.trim(keep=0)
    [entry] = engine.why("Porto").lines[0].entries
    assert entry.text is None
    assert entry.session_key == "cli:me"
    assert entry.messages[0].text == PORTO[2]["content"]


def test_why_falls_back_on_lines_holding_every_word_of_the_text(
    tmp_path: Path, clock: StepClock
) -> None:
    engine = model_free(tmp_path, clock)
    converse(engine, "cli:me", PORTO)
    engine.dream()
    user = Path(engine.location) / "USER.md"
    user.write_text(user.read_text("utf-8") + "- Lives in Porto since May\n", "utf-8")
    [hand] = engine.why("lives, porto, may").lines
    assert (hand.text, hand.origin) == ("- Lives in Porto since May", "hand")
    assert len(engine.why("porto").lines) == 2  # word for word, no fallback needed


def test_why_with_nothing_matching_is_empty_and_blank_text_is_refused(
    tmp_path: Path, clock: StepClock
) -> None:
    engine = model_free(tmp_path, clock)
    assert engine.why("anything").lines == ()
    with pytest.raises(ValueError, match="text"):
        engine.why("  ")


def test_the_async_engine_offers_why_and_forget(tmp_path: Path, clock: StepClock) -> None:
    engine = model_free(tmp_path, clock)
    converse(engine, "cli:me", PORTO)
    engine.dream()
    wrapped = AsyncMemoryEngine(engine)
    report = asyncio.run(wrapped.why("Porto"))
    assert report.lines[0].origin == "dream"
    forgotten = asyncio.run(wrapped.forget("Porto"))
    assert forgotten.removed
    assert engine.why("Porto").lines == ()
