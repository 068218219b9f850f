"""The soak's checks are not vacuous: each one reports the damage it exists to catch."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

from reverie.config.sections import DreamConfig
from reverie.config.settings import Config
from reverie.core.ledger import LedgerRecord
from reverie.core.messages import JSONObject, Message
from reverie.core.token_estimate import EstimatingCounter
from reverie.engine.facade import MemoryEngine
from reverie.testing.folders import workspace_of
from soaklib.acks import AckWriter, message_hash, read_acks, text_hash
from soaklib.checks import Report, check_cursors, check_entries, check_messages, check_quarantine
from soaklib.ledger_check import check_ledger
from soaklib.replies import DREAM_PROMPT, Replier
from soaklib.tree import compare, fingerprint, may_change

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _engine(tmp_path: Path) -> MemoryEngine:
    return MemoryEngine.open(tmp_path / "ws", Config(), environ={}, dense="off")


def test_a_lost_or_changed_acknowledged_message_is_reported(tmp_path: Path) -> None:
    with _engine(tmp_path) as engine:
        hello = Message(role="user", content="hello")
        workspace_of(engine).sessions.append("s", hello)
        acks = (
            {"kind": "record", "session": "s", "messages": [[0, message_hash(hello)]]},
            {"kind": "record", "session": "s", "messages": [[1, "0" * 16]]},
            {"kind": "record", "session": "t", "messages": [[0, "1" * 16]]},
        )
        report = Report()
        check_messages(engine, acks, report)
    assert report.violations == [
        "message 1 of s lost (session has 1)",
        "message 0 of t lost (session has 0)",
    ]


def test_an_index_acknowledged_with_two_contents_is_reported(tmp_path: Path) -> None:
    with _engine(tmp_path) as engine:
        workspace_of(engine).sessions.append("s", Message(role="user", content="a"))
        acks = (
            {"kind": "record", "session": "s", "messages": [[0, "a" * 16]]},
            {"kind": "record", "session": "s", "messages": [[0, "b" * 16]]},
        )
        report = Report()
        check_messages(engine, acks, report)
    assert "message ('s', 0) acknowledged with two contents" in report.violations
    assert "message 0 of s changed" in report.violations


def test_lost_changed_and_legitimately_trimmed_entries_are_told_apart(tmp_path: Path) -> None:
    with _engine(tmp_path) as engine:
        workspace = workspace_of(engine)
        history = workspace.history
        for n in range(4):
            history.append(f"entry {n}")
        workspace.dream_cursor.write(2)
        history.trim(keep=2)
        entries = list(history.entries())
        acks = (
            {"kind": "record", "entries": [[1, text_hash("entry 0")], [3, text_hash("entry 2")]]},
            {"kind": "record", "entries": [[4, text_hash("not entry 3")], [9, "x"]]},
        )
        report = Report()
        check_entries(engine, acks, entries, report)
    assert report.figures["acked_entries_trimmed"] == 1
    assert report.violations == [
        "entry 4 changed",
        "entry 9 lost (not in the log, not trimmed)",
    ]


def test_a_cursor_floor_ahead_of_the_log_is_reported(tmp_path: Path) -> None:
    with _engine(tmp_path) as engine:
        workspace_of(engine).history.append("one")
        (Path(engine.location) / "memory" / ".cursor").write_text("5", encoding="utf-8")
        report = Report()
        check_cursors(engine, list(engine.history()), report)
    assert report.violations == [".cursor holds 5 but the last entry is 1"]


def _dream_line(at: datetime, outcome: str, tokens: int) -> LedgerRecord:
    return LedgerRecord(time=at, job="dream", outcome=outcome, model="m", tokens_in=tokens)


def test_ledger_runs_end_at_final_answers_and_kills_and_are_held_to_the_budget(
    tmp_path: Path,
) -> None:
    with _engine(tmp_path) as engine:
        ledger = workspace_of(engine).ledger
        lines = [
            (0, "tool_calls", 400),
            (1, "final", 400),  # run 1: 800
            (2, "tool_calls", 900),  # run 2 killed after this line
            (4, "tool_calls", 600),
            (5, "final", 600),  # run 3: 1,200, over a 1,000 budget
            (6, "error", 100),
            (6, "failed", 0),  # run 4: 100
        ]
        for second, outcome, tokens in lines:
            ledger.append(_dream_line(T0 + timedelta(seconds=second), outcome, tokens))
        figures, problems = check_ledger(
            ledger,
            dream=DreamConfig(token_budget=1_000, max_rounds=4),
            context_window=4_000,
            max_output_tokens=500,
            kill_times=[(T0 + timedelta(seconds=3)).timestamp()],
        )
    assert figures.dream_runs == 4
    assert figures.max_run_tokens == 1_200
    assert len(problems) == 1
    assert "spent 1200 tokens (budget 1000)" in problems[0]


def test_files_outside_the_writable_set_are_guarded_and_inside_it_are_not(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "USER.md").write_text("user", encoding="utf-8")
    (workspace / "canary.txt").write_text("canary", encoding="utf-8")
    (tmp_path / "outside.txt").write_text("canary", encoding="utf-8")
    acks = tmp_path / "acks"
    acks.mkdir()
    before = fingerprint(tmp_path, workspace, acks)
    (workspace / "USER.md").write_text("edited", encoding="utf-8")
    (workspace / "canary.txt").write_text("pwned", encoding="utf-8")
    (tmp_path / "x").write_text("pwned", encoding="utf-8")
    (tmp_path / "outside.txt").unlink()
    (acks / "w0-g1.jsonl").write_text("{}\n", encoding="utf-8")
    assert compare(before, fingerprint(tmp_path, workspace, acks)) == [
        "x appeared outside the writable set",
        "outside.txt disappeared",
        "ws/canary.txt changed outside the writable set",
    ]
    assert may_change("skills/notes/SKILL.md")
    assert not may_change("skills/Notes/SKILL.md")
    assert not may_change(".git/config")
    assert may_change(".git/refs/heads/master")


def test_a_torn_last_ack_line_is_skipped(tmp_path: Path) -> None:
    writer = AckWriter(tmp_path / "w0-g1.jsonl")
    writer.write({"kind": "start"})
    writer.close()
    with (tmp_path / "w0-g1.jsonl").open("a", encoding="utf-8") as handle:
        handle.write('{"kind": "rec')
    log = read_acks(tmp_path)
    assert [ack["kind"] for ack in log.acks] == ["start"]
    assert log.torn == 1


def test_the_soak_model_honours_max_tokens_and_never_overreports_the_prompt() -> None:
    counter = EstimatingCounter()
    replier = Replier(
        rng=random.Random(0), counter=counter, fault_rate=0.0, timeout_delay=1.0, hostile_paths=()
    )
    texts = [DREAM_PROMPT, "history " * 50]
    body: JSONObject = {
        "messages": [
            {"role": "system", "content": texts[0]},
            {"role": "user", "content": texts[1]},
        ],
        "max_tokens": 5,
    }
    job, answer = replier.answer(body)
    reply = json.loads(answer.body)
    assert job == "dream"
    assert reply["choices"][0]["finish_reason"] == "length"
    assert reply["usage"]["completion_tokens"] <= 5
    assert reply["usage"]["prompt_tokens"] <= sum(counter.text(text) for text in texts)


def test_a_damaged_history_line_is_reported_and_its_acknowledged_entries_lost(
    tmp_path: Path,
) -> None:
    with _engine(tmp_path) as engine:
        history = workspace_of(engine).history
        for n in range(3):
            history.append(f"entry {n}")
        lines = history.path.read_bytes().splitlines(keepends=True)
        history.path.write_bytes(lines[0] + lines[1][:20] + lines[2])  # entry 2 cut short
        history.repair()
        acks = ({"kind": "record", "entries": [[2, text_hash("entry 1")]]},)
        report = Report()
        check_quarantine(engine, report)
        check_entries(engine, acks, list(history.entries()), report)
    assert report.figures["history_lines_quarantined"] == 1
    assert report.violations[0].startswith("history line 2 of history.jsonl damaged")
    assert report.violations[1] == "entry 2 lost: its line was damaged and quarantined"
