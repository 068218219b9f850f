"""OpenAI-style message lists: JSON and JSON Lines shapes, times, damaged records, progress."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

from reverie.core.messages import JSONValue
from reverie.memory.ingest.importers import load, new_messages
from reverie.memory.ingest.importers.tool_pairs import NO_RESULT

TZ = timezone(timedelta(hours=2))


def write_json(path: Path, data: JSONValue) -> Path:
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def write_lines(path: Path, *lines: str) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def msg(role: str, text: str, when: str | float | None = "2026-11-01T10:00:00+00:00") -> JSONValue:
    obj: dict[str, JSONValue] = {"role": role, "content": text}
    if when is not None:
        obj["timestamp"] = when
    return obj


def test_a_json_list_of_messages_is_one_conversation(tmp_path: Path) -> None:
    path = write_json(
        tmp_path / "chat.json",
        [msg("system", "be nice"), msg("user", "hello"), msg("assistant", "hi")],
    )
    batch = load(path)
    assert batch.format == "openai-json"
    (conversation,) = batch.conversations
    assert conversation.key == "import:openai:chat"
    assert [m.role for m in conversation.messages] == ["user", "assistant"]
    assert conversation.messages[0].timestamp == datetime(2026, 11, 1, 10, tzinfo=UTC)
    assert conversation.source == path
    assert batch.problems == ()


def test_a_list_of_conversations_keeps_ids_titles_and_time_order(tmp_path: Path) -> None:
    path = write_json(
        tmp_path / "all.json",
        [
            {
                "id": "late",
                "title": "Later",
                "messages": [msg("user", "b", "2026-11-05T09:00:00Z")],
            },
            {"title": "No id", "messages": [msg("user", "a", 1_790_000_000)]},
            [msg("user", "bare list", None)],
        ],
    )
    batch = load(path)
    assert [c.key for c in batch.conversations] == [
        "import:openai:all:2",
        "import:openai:late",
        "import:openai:all:3",
    ]
    assert batch.conversations[0].started_at == datetime.fromtimestamp(1_790_000_000, UTC)
    assert batch.conversations[1].title == "Later"
    assert batch.conversations[2].started_at is None
    assert batch.message_count == 3


def test_one_conversation_object_and_naive_times_in_the_given_zone(tmp_path: Path) -> None:
    path = write_json(
        tmp_path / "one.json",
        {"messages": [msg("developer", "rules"), msg("user", "hi", "2026-11-01 10:00")]},
    )
    (conversation,) = load(path, local_tz=TZ).conversations
    assert [m.text for m in conversation.messages] == ["hi"]
    assert conversation.messages[0].timestamp == datetime(2026, 11, 1, 10, tzinfo=TZ)


def test_jsonl_with_one_message_per_line_reports_a_damaged_line_and_keeps_the_rest(
    tmp_path: Path,
) -> None:
    path = write_lines(
        tmp_path / "log.jsonl",
        json.dumps(msg("user", "first")),
        '{"role": "user", "content": "torn',
        json.dumps({"role": "robot", "content": "x"}),
        "",
        json.dumps(msg("assistant", "second", "2026-11-01T10:01:00+00:00")),
    )
    batch = load(path)
    assert batch.format == "openai-jsonl"
    assert [m.text for m in batch.conversations[0].messages] == ["first", "second"]
    assert [(p.position, p.unit) for p in batch.problems] == [(2, "line"), (3, "line")]
    assert "not valid JSON" in batch.problems[0].reason
    assert "role" in batch.problems[1].reason
    assert batch.problems[0].describe().startswith(f"{path} line 2: ")


def test_jsonl_with_one_conversation_per_line(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "convs.jsonl",
        json.dumps({"id": "a", "messages": [msg("user", "one")]}),
        json.dumps([msg("user", "two")]),
        json.dumps({"title": "broken", "messages": "nope"}),
        json.dumps({"id": "c", "messages": [msg("user", "three"), {"role": 5}]}),
    )
    batch = load(path)
    assert [c.key for c in batch.conversations] == [
        "import:openai:a",
        "import:openai:convs:2",
        "import:openai:c",
    ]
    assert [(p.position, p.unit) for p in batch.problems] == [(3, "line"), (4, "line")]
    assert batch.problems[1].reason.startswith("message 2:")


def test_a_damaged_conversation_in_a_json_list_is_reported_by_record(tmp_path: Path) -> None:
    path = write_json(tmp_path / "all.json", [{"messages": [msg("user", "ok")]}, {"oops": 1}])
    batch = load(path)
    assert len(batch.conversations) == 1
    (problem,) = batch.problems
    assert (problem.position, problem.unit) == (2, "record")


def test_tool_calls_keep_their_results_and_unanswered_calls_get_a_placeholder(
    tmp_path: Path,
) -> None:
    call: JSONValue = {
        "id": "c1",
        "type": "function",
        "function": {"name": "search", "arguments": "{}"},
    }
    lost: JSONValue = {
        "id": "c2",
        "type": "function",
        "function": {"name": "lost", "arguments": "{}"},
    }
    path = write_json(
        tmp_path / "tools.json",
        [
            msg("user", "find it"),
            {"role": "assistant", "content": None, "tool_calls": [call, lost]},
            {"role": "tool", "tool_call_id": "c1", "content": "found"},
            {"role": "tool", "tool_call_id": "nobody", "name": "stray", "content": "orphan"},
            msg("assistant", "done"),
        ],
    )
    messages = load(path).conversations[0].messages
    assert [(m.role, m.tool_call_id, m.text) for m in messages] == [
        ("user", None, "find it"),
        ("assistant", None, ""),
        ("tool", "c1", "found"),
        ("tool", "c2", NO_RESULT),
        ("assistant", None, ""),
        ("tool", "nobody", "orphan"),
        ("assistant", None, "done"),
    ]
    assert messages[4].tool_calls[0].name == "stray"


def test_progress_is_reported_for_every_record(tmp_path: Path) -> None:
    path = write_json(tmp_path / "all.json", [[msg("user", str(n))] for n in range(4)])
    seen: list[tuple[int, int]] = []
    load(path, on_progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_reimporting_the_same_file_adds_nothing(tmp_path: Path) -> None:
    path = write_json(
        tmp_path / "chat.json", [msg("user", "ok"), msg("user", "ok"), msg("assistant", "fine")]
    )
    first = load(path).conversations[0]
    again = load(path).conversations[0]
    assert again.key == first.key
    assert again.hashes == first.hashes
    assert new_messages(first.messages, again.messages) == ()
