"""Store-level parts of provenance and forgetting: the sidecar, entry edits, tombstones, scrubs."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from reverie.core.messages import Message, ToolCall
from reverie.core.needles import Needle, scrub_blob
from reverie.core.provenance import EntrySource, LineRecord, MessageRef, Provenance, line_key
from reverie.core.tombstones import FORGOTTEN
from reverie.memory.provenance.pieces import Fact
from reverie.storage.folder.provenance_file import ProvenanceFile
from reverie.storage.folder.scrub import scrub_jsonl
from reverie.storage.folder.workspace import Workspace
from tests.conftest import StepClock
from tests.store.stored_sessions import stored_session_bytes

AT = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def test_line_key_drops_the_bullet_and_folds_case_and_spaces() -> None:
    assert line_key("-   Lives in  PORTO ") == "lives in porto"
    assert line_key("* [x] Done") == "done"
    assert line_key("2. Second") == "second"


def test_the_sidecar_round_trips_and_merges_sources(tmp_path: Path) -> None:
    file = ProvenanceFile(tmp_path / "p.json")
    provenance = Provenance()
    source = EntrySource(
        cursor=3,
        session_key="tg:1",
        time=AT,
        kind="summary",
        range=(0, 4),
        messages=(MessageRef(index=2, role="user", time=AT),),
    )
    provenance.note("USER.md", "- Lives in Porto", (source,), AT)
    provenance.note("USER.md", "- lives in porto", (EntrySource(cursor=5),), AT)
    file.write(provenance)
    record = file.read().get("USER.md", "- Lives in Porto")
    assert record == LineRecord(
        file="USER.md",
        key="lives in porto",
        first=AT,
        updated=AT,
        sources=(source, EntrySource(cursor=5)),
    )


@pytest.mark.parametrize(
    "text",
    ["{not json", '{"format": "other"}', '{"format": "reverie-provenance", "version": 99}'],
)
def test_an_unusable_sidecar_reads_as_empty_with_a_warning(
    tmp_path: Path, text: str, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "p.json"
    path.write_text(text, encoding="utf-8")
    assert ProvenanceFile(path).read().records == {}
    assert "hand-written" in caplog.text


def test_a_redacted_message_keeps_its_place_role_and_tool_ids(tmp_path: Path) -> None:
    workspace = Workspace.open(tmp_path / "ws", create=True)
    store = workspace.sessions
    call = ToolCall(id="c1", name="note", arguments='{"text": "lives in Porto"}')
    store.append_many(
        "tg:1",
        [
            Message(role="user", content="I live in Porto."),
            Message(role="assistant", tool_calls=(call,)),
            Message(role="tool", content="saved Porto", tool_call_id="c1"),
            Message(role="user", content="Thanks."),
        ],
    )
    store.set_summary("tg:1", "User lives in Porto.", AT)
    store.set_compacted_upto("tg:1", 2)
    store.redact("tg:1", {0, 1, 2}, summary=True)
    root = workspace.root
    fresh = Workspace.open(root, clock=StepClock())
    session = fresh.sessions.load("tg:1")
    assert [m.role for m in session.messages] == ["user", "assistant", "tool", "user"]
    assert [m.content for m in session.messages[:3:2]] == [FORGOTTEN, FORGOTTEN]
    assert session.messages[1].tool_calls == (ToolCall(id="c1", name="note", arguments="{}"),)
    assert session.messages[2].tool_call_id == "c1"
    assert session.messages[3].content == "Thanks."
    assert (session.compacted_upto, session.summary) == (2, None)
    assert b"Porto" not in stored_session_bytes(root)
    assert store.append("tg:1", Message(role="user", content="more")) == 4
    fresh.close()
    workspace.close()


def test_scrub_jsonl_finds_the_text_inside_base64(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    hidden = base64.b64encode(b'{"content": "Porto"}').decode()
    path.write_text(
        json.dumps({"raw": hidden}) + "\n" + json.dumps({"raw": "bm90aGluZw=="}) + "\n",
        encoding="utf-8",
    )
    assert scrub_jsonl(path, Needle("porto")) == 1
    assert "bm90aGluZw==" in path.read_text(encoding="utf-8")
    assert scrub_jsonl(tmp_path / "absent.jsonl", Needle("porto")) == 0


def test_scrub_blob_drops_lines_holding_the_text_or_a_forgotten_line() -> None:
    data = b"# User\n\n- Lives in Porto\n- Likes the sea\n- Has a cat\n"
    assert scrub_blob(data, Needle("porto"), {"likes the sea"}) == b"# User\n\n- Has a cat\n"


def test_needle_forms_cover_case_and_json_escapes() -> None:
    needle = Needle("Café")
    assert needle.in_bytes(b'{"t": "caf\\u00e9"}')
    assert needle.in_bytes("CAFé".encode())
    assert not needle.in_bytes(b"cafe")


def test_a_fact_is_cut_sentence_by_sentence_chinese_included() -> None:
    fact = Fact("Porto", ["Lives in Porto"])
    assert fact.cut("I live in Porto. I am a biologist.") == "I am a biologist."
    assert fact.cut("- [durable] User: I live in Porto") is None
    assert fact.cut("Nothing here.") == "Nothing here."
    chinese = Fact("上海", [])
    assert chinese.cut("我住在上海。我喜欢猫。") == "我喜欢猫。"
