"""Sessions written before redaction ran on append: doctor finds them, one command rewrites them.

A session holding secrets verbatim is written straight through the session store (as an older
reverie wrote it). ``doctor`` reports a problem naming the session, the kinds and the fix;
``redact_sessions`` (``reverie doctor --redact-sessions``) rewrites those messages in place,
redacted: same count, places, roles, ids and the rest of their text, the search index
refreshed (the secret is no longer found), no byte of it left in the folder's files. Both
backends (``ingest_target``).
"""

from __future__ import annotations

from pathlib import Path

from reverie.core.messages import Message, ToolCall
from reverie.memory.session_secrets import FIX
from tests.ingest.targets import Target

PASSWORD = "Zebra-hunter7-Quill"
KEY = "sk-proj-" + "Q7x2Lm9Vb4Nc8Rt1Zk5Wp3Hs6Jd0Fg2A"
OLD = (
    Message(role="user", content=f"my wifi password is {PASSWORD}, the router is upstairs"),
    Message(
        role="assistant",
        content=None,
        tool_calls=(ToolCall(id="call_1", name="save_key", arguments=f'{{"key": "{KEY}"}}'),),
    ),
    Message(role="tool", content="saved", tool_call_id="call_1", name="save_key"),
    Message(role="assistant", content="Noted: the router is upstairs."),
)


def _old_session(target: Target) -> None:
    target.stores.sessions.append_many("tg:old", OLD)  # the store itself keeps what it is given


def test_doctor_names_an_old_session_holding_secrets_and_the_fix(ingest_target: Target) -> None:
    _old_session(ingest_target)
    report = ingest_target.engine.doctor()
    found = [f for f in report.findings if f.check == "session-secrets"]
    assert not report.ok
    assert len(found) == 1
    assert "tg:old" in found[0].message
    assert "2 message(s)" in found[0].message
    assert "password" in found[0].message
    assert FIX in found[0].message
    assert PASSWORD not in found[0].message


def test_redact_sessions_rewrites_them_in_place_and_search_no_longer_finds_them(
    ingest_target: Target,
) -> None:
    engine = ingest_target.engine
    _old_session(ingest_target)
    assert engine.search("Zebra")  # the index holds the old text
    done = engine.redact_sessions()
    assert (done.sessions, done.messages) == (1, 2)
    kept = engine.session("tg:old").messages
    assert [(m.role, m.tool_call_id, m.name) for m in kept] == [
        (m.role, m.tool_call_id, m.name) for m in OLD
    ]
    assert [c.id for c in kept[1].tool_calls] == ["call_1"]
    assert "the router is upstairs" in kept[0].text
    assert PASSWORD not in kept[0].text
    assert KEY not in kept[1].tool_calls[0].arguments
    assert kept[3].text == OLD[3].text  # nothing else changed
    assert not engine.search("Zebra")
    assert engine.search("upstairs")
    assert not [f for f in engine.doctor().findings if f.check == "session-secrets"]
    assert engine.redact_sessions().sessions == 0  # idempotent
    if ingest_target.kind == "folder":
        state = Path(engine.location) / ".reverie"
        held = [p for p in state.rglob("*") if p.is_file() and PASSWORD.encode() in p.read_bytes()]
        assert held == []


def test_an_old_summary_holding_a_secret_is_rewritten_too(ingest_target: Target) -> None:
    from datetime import UTC, datetime

    stores = ingest_target.stores
    stores.sessions.append_many("tg:sum", OLD[3:])
    said = f"Ada set the wifi password to {PASSWORD} for the guests"
    stores.sessions.set_summary("tg:sum", said, datetime(2026, 10, 1, tzinfo=UTC))
    assert [f for f in ingest_target.engine.doctor().findings if "tg:sum" in f.message]
    done = ingest_target.engine.redact_sessions()
    assert done.summaries == 1
    summary = ingest_target.engine.session("tg:sum").summary
    assert summary is not None
    assert "for the guests" in summary.text
    assert PASSWORD not in summary.text
    if ingest_target.kind == "folder":
        state = Path(ingest_target.engine.location) / ".reverie"
        held = [p for p in state.rglob("*") if p.is_file() and PASSWORD.encode() in p.read_bytes()]
        assert held == []
