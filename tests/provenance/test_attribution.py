"""Attribution alone: edits carry sources, moves keep them, wholesale rewrites are skipped."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from reverie.core import provenance as provenance_values
from reverie.core.entries import HistoryEntry
from reverie.core.messages import Message
from reverie.core.provenance import EntrySource, Provenance
from reverie.memory.provenance.attribution import MAX_LINES, attribute
from reverie.storage.folder.provenance_file import ProvenanceFile

AT = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def _entry(cursor: int, text: str) -> HistoryEntry:
    return HistoryEntry(cursor=cursor, timestamp="", content=text, session_key="tg:1", range=(0, 1))


def _messages(_key: str) -> list[Message]:
    return [Message(role="user", content="I moved to Braga last week.")]


def test_an_edit_carries_the_old_sources_and_a_move_keeps_them() -> None:
    provenance = Provenance()
    provenance.note("USER.md", "- Lives in Porto", (EntrySource(cursor=1),), AT)
    provenance.note("USER.md", "- Has a cat", (EntrySource(cursor=2),), AT)
    noted = attribute(
        provenance,
        old={"USER.md": "- Lives in Porto\n- Has a cat\n", "memory/MEMORY.md": ""},
        new={"USER.md": "- Lives in Braga (before: Porto)\n", "memory/MEMORY.md": "- Has a cat\n"},
        entries=[_entry(3, "User moved to Braga.")],
        messages_of=_messages,
        at=AT,
    )
    assert noted == 2
    braga = provenance.get("USER.md", "- Lives in Braga (before: Porto)")
    assert braga is not None
    assert [s.cursor for s in braga.sources] == [1, 3]
    assert [m.index for m in braga.sources[1].messages] == [0]
    cat = provenance.get("memory/MEMORY.md", "- Has a cat")
    assert cat is not None
    assert [s.cursor for s in cat.sources] == [2]  # nothing in the batch supports it


def test_a_wholesale_rewrite_is_not_attributed(caplog: pytest.LogCaptureFixture) -> None:
    provenance = Provenance()
    text = "".join(f"- line {n}\n" for n in range(MAX_LINES + 1))
    noted = attribute(
        provenance, old={}, new={"USER.md": text}, entries=[], messages_of=_messages, at=AT
    )
    assert noted == 0
    assert provenance.records == {}
    assert "not recorded" in caplog.text


def test_the_sidecar_keeps_the_most_recent_records_past_its_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(provenance_values, "MAX_RECORDS", 2)
    provenance = Provenance()
    for minute in range(3):
        provenance.note("USER.md", f"- fact {minute}", (), AT.replace(minute=minute))
    file = ProvenanceFile(tmp_path / "p.json")
    file.write(provenance)
    assert sorted(key for _file, key in file.read().records) == ["fact 1", "fact 2"]


def test_a_supersession_unlike_the_old_line_is_paired_in_place_or_by_its_before() -> None:
    provenance = Provenance()
    provenance.note("USER.md", "- I cycle 12 km to work every day", (EntrySource(cursor=1),), AT)
    provenance.note("USER.md", "- Drinks espresso", (EntrySource(cursor=2),), AT)
    attribute(
        provenance,
        old={"USER.md": "# User\n- I cycle 12 km to work every day\n- Drinks espresso\n"},
        new={"USER.md": "# User\n- Prefers green tea\n- Commutes by train (before: cycling)\n"},
        entries=[_entry(3, "User now commutes by train and prefers green tea.")],
        messages_of=_messages,
        at=AT,
    )
    train = provenance.get("USER.md", "- Commutes by train (before: cycling)")
    tea = provenance.get("USER.md", "- Prefers green tea")
    assert train is not None
    assert tea is not None
    assert [s.cursor for s in train.sources] == [1, 3]  # named by "before: cycling"
    assert [s.cursor for s in tea.sources] == [1, 3]  # replaced the cycling line in place
