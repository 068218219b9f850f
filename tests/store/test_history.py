"""The history log: cursors, reads, cleaning, trim and edit.

The scenarios every backend promises run on a folder workspace and on a PostgreSQL workspace
(the ``stores`` fixture); the rest read and write ``memory/history.jsonl`` itself (torn and bad
lines, the checkpoint, reading backwards), which only the folder has.
"""

from __future__ import annotations

import json
import random
import secrets
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from reverie import CursorError, HistoryEntry
from reverie.core.entries import (
    HARD_CAP_CHARS,
    EntryFormatError,
    strip_reasoning,
    truncate,
)
from reverie.storage.folder.backend import FileBackend
from reverie.storage.folder.workspace import Workspace
from reverie.storage.ports import Backend
from tests.conftest import StepClock


@pytest.fixture(params=["folder", "postgres"])
def stores(request: pytest.FixtureRequest, tmp_path: Path, clock: StepClock) -> Iterator[Backend]:
    """A new workspace's stores: a folder, then a workspace of the test database."""
    opened: Backend
    if request.param == "folder":
        opened = FileBackend.open(tmp_path / "ws", create=True, clock=clock)
    else:
        from reverie.storage.postgres.backend import PgBackend  # the postgres extra

        url = request.getfixturevalue("pg_url")
        opened = PgBackend.open(url, f"history-{secrets.token_hex(5)}", create=True, clock=clock)
    yield opened
    opened.close()


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def test_append_hands_out_increasing_cursors_with_nanobot_fields(workspace: Workspace) -> None:
    first = workspace.history.append("hello", session_key="cli:a")
    second = workspace.history.append("world")
    assert (first.cursor, second.cursor) == (1, 2)
    record = json.loads(_lines(workspace.history.path)[0])
    assert record["cursor"] == 1
    assert record["content"] == "hello"
    assert record["session_key"] == "cli:a"
    assert len(record["timestamp"]) == len("2026-11-30 09:00")
    assert "session_key" not in json.loads(_lines(workspace.history.path)[1])
    assert (workspace.root / "memory" / ".cursor").read_text() == "2"


def test_append_numbers_entries_and_keeps_time_range_and_kind(stores: Backend) -> None:
    log = stores.history
    at = datetime(2026, 3, 2, 18, 40, tzinfo=UTC)
    first = log.append(
        "moved to Porto", session_key="tg:alice", at=at, source_range=(0, 12), kind="summary"
    )
    if isinstance(stores, FileBackend):
        log.append("two")
        log.append("three", source_range=(0, 4))
    else:  # the database's log also takes a batch in one statement (the ingest path uses it)
        from reverie.storage.postgres.history import NewEntry, PgHistoryLog

        assert isinstance(log, PgHistoryLog)
        log.append_many([NewEntry(text="two"), NewEntry(text="three", source_range=(0, 4))])
    assert first.cursor == 1
    entries = log.read_since(0)
    assert [e.cursor for e in entries] == [1, 2, 3]
    assert entries[0] == first
    assert entries[0].time == at
    assert (entries[0].range, entries[0].kind) == ((0, 12), "summary")
    assert entries[2].range == (0, 4)
    assert [e.cursor for e in log.read_since(1, limit=1)] == [2]
    assert log.last_cursor() == 3


def test_append_strips_leaked_reasoning_redacts_caps_length_and_keeps_nul(
    stores: Backend,
) -> None:
    log = stores.history
    entry = log.append("<think>private plan</think>The user likes tea.")
    assert entry.content == "The user likes tea."
    capped = log.append("y" * (HARD_CAP_CHARS + 500))
    assert len(capped.content) <= HARD_CAP_CHARS
    assert "truncated" in capped.content
    tight = log.append("z" * 5000, max_chars=1000)
    assert len(tight.content) <= 1000
    log.append("<think>plan</think>api key sk-abcdefghijklmnopqrstuvwx1234 and a\x00nul \ue000")
    log.append("x" * 100, max_chars=20)
    stored = log.read_since(3)
    assert "plan" not in stored[0].content
    assert "sk-abcdefghijklmnopqrstuvwx1234" not in stored[0].content
    assert stored[0].content.endswith("a\x00nul \ue000")
    assert len(stored[1].content) <= 20


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("<think>a</think>keep", "keep"),
        ("keep<think>never closed", "keep"),
        ("<THINKING>x</THINKING>keep", "keep"),
        ("<|channel|>analysis<|message|>hidden<|end|>keep", "keep"),
        ("keep<|start|>", "keep"),
        ("plain text", "plain text"),
    ],
)
def test_strip_reasoning_removes_think_blocks_and_channel_markers(raw: str, expected: str) -> None:
    assert strip_reasoning(raw) == expected


def test_truncate_keeps_short_text_and_marks_cuts() -> None:
    assert truncate("short", 10) == "short"
    cut = truncate("a" * 100, 50)
    assert len(cut) <= 50
    assert cut.startswith("a")


def test_read_since_returns_entries_after_cursor_with_limit(stores: Backend) -> None:
    for index in range(30):
        stores.history.append(f"entry {index}")
    assert [e.cursor for e in stores.history.read_since(25)] == [26, 27, 28, 29, 30]
    assert [e.cursor for e in stores.history.read_since(0, limit=3)] == [1, 2, 3]
    assert stores.history.read_since(30) == []
    assert stores.history.read_since(1000) == []
    with pytest.raises(CursorError):
        stores.history.read_since(-1)


def test_read_since_agrees_with_a_linear_scan_on_a_large_log(workspace: Workspace) -> None:
    rng = random.Random(7)
    for index in range(3000):
        workspace.history.append(f"{index} " + "w" * rng.randint(0, 3000))
    everything = list(workspace.history.entries())
    assert len(everything) == 3000
    for cursor in [0, 1, 2, 1499, 2980, 2999, 3000, *rng.sample(range(3000), 40)]:
        expected = [e for e in everything if e.cursor > cursor][:20]
        assert workspace.history.read_since(cursor, limit=20) == expected


def test_read_since_ignores_a_final_line_still_being_written(workspace: Workspace) -> None:
    workspace.history.append("complete")
    with workspace.history.path.open("ab") as handle:
        handle.write(b'{"cursor": 2, "timestamp": "x", "con')
    assert [e.content for e in workspace.history.read_since(0)] == ["complete"]


def test_torn_last_line_is_quarantined_on_open_and_numbering_continues(
    tmp_path: Path, clock: StepClock
) -> None:
    workspace = Workspace.open(tmp_path / "ws", create=True, clock=clock)
    workspace.history.append("one")
    workspace.history.append("two")
    workspace.close()
    with (tmp_path / "ws" / "memory" / "history.jsonl").open("ab") as handle:
        handle.write(b'{"cursor": 3, "timestamp": "2026-11-30 09:00", "content": "to')
    reopened = Workspace.open(tmp_path / "ws", clock=clock)
    assert [bad.reason for bad in reopened.repairs] == ["torn last line"]
    assert reopened.repairs[0].line == 3
    assert reopened.quarantine.records()[0].raw.startswith(b'{"cursor": 3')
    assert reopened.history.append("three").cursor == 3
    assert [e.content for e in reopened.history.read_since(0)] == ["one", "two", "three"]


def test_append_cuts_a_torn_tail_left_by_another_writer(workspace: Workspace) -> None:
    workspace.history.append("one")
    with workspace.history.path.open("ab") as handle:
        handle.write(b'{"cursor": 2, "tim')
    entry = workspace.history.append("two")
    assert entry.cursor == 2
    assert [e.content for e in workspace.history.read_since(0)] == ["one", "two"]
    assert [bad.reason for bad in workspace.quarantine.records()] == ["torn last line"]


BAD_LINES: list[tuple[bytes, str]] = [
    (b"this is not json\n", "not valid JSON"),
    (b'{"cursor": 7, "content": "\xff\xfe bad utf8", "timestamp": "t"}\n', "not valid JSON"),
    (b'{"cursor": "9", "content": "string cursor", "timestamp": "t"}\n', "positive integer"),
    (b'{"cursor": true, "content": "bool cursor", "timestamp": "t"}\n', "positive integer"),
    (b'{"cursor": -4, "content": "negative", "timestamp": "t"}\n', "positive integer"),
    (b'{"cursor": 2.5, "content": "float", "timestamp": "t"}\n', "positive integer"),
    (b"[1, 2, 3]\n", "not a JSON object"),
    (b'{"cursor": 11, "content": 5, "timestamp": "t"}\n', "content must be a string"),
]


def _nanobot_line(cursor: int, content: str) -> bytes:
    record = {"cursor": cursor, "timestamp": "2026-11-01 10:00", "content": content}
    return (json.dumps(record, ensure_ascii=False) + "\n").encode()


def test_invalid_lines_are_quarantined_with_position_and_original_bytes(
    tmp_path: Path, clock: StepClock
) -> None:
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    good = [_nanobot_line(c, f"good {c}") for c in (1, 2, 3, 20)]
    body = good[0] + good[1] + b"".join(line for line, _ in BAD_LINES) + good[2] + good[3]
    (root / "memory" / "history.jsonl").write_bytes(body)
    workspace = Workspace.open(root, clock=clock)
    records = workspace.quarantine.records()
    assert len(records) == len(BAD_LINES)
    for record, (raw, reason) in zip(records, BAD_LINES, strict=True):
        assert record.raw == raw
        assert reason in record.reason
    assert [r.line for r in records] == list(range(3, 3 + len(BAD_LINES)))
    assert [e.cursor for e in workspace.history.read_since(0)] == [1, 2, 3, 20]
    assert workspace.history.append("next").cursor == 21
    workspace.close()
    again = Workspace.open(root, clock=clock)
    assert again.repairs == []
    assert len(again.quarantine.records()) == len(BAD_LINES)


def test_reading_meets_a_bad_line_written_later_and_quarantines_it(workspace: Workspace) -> None:
    workspace.history.append("one")
    with workspace.history.path.open("ab") as handle:
        handle.write(b"garbage appended by some other tool\n")
    workspace.history.append("two")
    assert [e.content for e in workspace.history.read_since(0)] == ["one", "two"]
    assert [bad.raw for bad in workspace.quarantine.records()] == [
        b"garbage appended by some other tool\n"
    ]


def test_entry_parsing_rejects_bad_fields() -> None:
    with pytest.raises(EntryFormatError):
        HistoryEntry.from_line(b'{"cursor": 1, "content": "x", "session_key": 5}')
    with pytest.raises(EntryFormatError):
        HistoryEntry.from_line(b'{"cursor": 1, "content": "x", "timestamp": 5}')
    entry = HistoryEntry.from_line(b'{"cursor": 1, "content": "x", "time": "bad"}')
    assert entry.time is None
    naive = HistoryEntry.from_line(b'{"cursor": 1, "content": "x", "time": "2026-01-01T10:00"}')
    assert naive.time is not None
    assert naive.time.tzinfo is not None


def test_trim_keeps_unread_entries_and_the_newest_and_never_reuses_a_cursor(
    stores: Backend,
) -> None:
    log = stores.history
    for index in range(50):
        log.append(f"e{index}")
    assert log.trim(keep=10).dropped == 0  # dream has read nothing
    stores.dream_cursor.write(30)
    result = log.trim(keep=10)
    assert (result.dropped, result.kept, result.dropped_through) == (30, 20, 30)
    assert [e.cursor for e in log.read_since(0)] == list(range(31, 51))
    stores.dream_cursor.write(50)
    result = log.trim(keep=5)
    assert (result.dropped, result.kept) == (15, 5)
    assert log.append("after trim").cursor == 51
    assert [e.cursor for e in log.entries()] == [46, 47, 48, 49, 50, 51]
    with pytest.raises(ValueError, match="keep"):
        log.trim(keep=-1)


def test_trim_to_nothing_never_reuses_a_cursor(tmp_path: Path, clock: StepClock) -> None:
    workspace = Workspace.open(tmp_path / "ws", create=True, clock=clock)
    for index in range(5):
        workspace.history.append(f"e{index}")
    workspace.dream_cursor.write(5)
    assert workspace.history.trim(keep=0).dropped == 5
    workspace.close()
    reopened = Workspace.open(tmp_path / "ws", clock=clock)
    assert reopened.history.append("fresh").cursor == 6


def test_trim_quarantines_bad_lines_instead_of_dropping_them(workspace: Workspace) -> None:
    for index in range(6):
        workspace.history.append(f"e{index}")
    with workspace.history.path.open("ab") as handle:
        handle.write(b"not json at all\n")
    workspace.dream_cursor.write(6)
    assert workspace.history.trim(keep=2).dropped == 4
    assert [r.raw for r in workspace.quarantine.records()] == [b"not json at all\n"]


def test_a_reader_survives_another_instance_trimming_the_file(
    tmp_path: Path, clock: StepClock
) -> None:
    writer = Workspace.open(tmp_path / "ws", create=True, clock=clock)
    other = Workspace.open(tmp_path / "ws", clock=clock)
    for index in range(20):
        writer.history.append(f"e{index}")
    other.dream_cursor.write(15)
    other.history.trim(keep=3)
    assert writer.history.append("after").cursor == 21
    assert [e.cursor for e in other.history.read_since(15)] == [16, 17, 18, 19, 20, 21]


def test_last_cursor_and_entries_on_an_empty_log(workspace: Workspace) -> None:
    assert workspace.history.last_cursor() == 0
    assert list(workspace.history.entries()) == []
    workspace.history.path.unlink()
    assert list(workspace.history.entries()) == []
    assert workspace.history.read_since(0) == []


def test_a_bad_range_or_kind_in_a_line_reads_as_none() -> None:
    odd = HistoryEntry.from_line(b'{"cursor": 3, "content": "x", "range": [5, 2], "kind": 7}')
    assert (odd.range, odd.kind) == (None, None)


def test_read_recent_reads_backwards_with_filters_and_bounds(stores: Backend) -> None:
    log = stores.history
    for index in range(30):
        log.append(f"a{index}", session_key="cli:a")
        log.append(f"b{index}", session_key="cli:ab")
    if isinstance(stores, FileBackend):  # only a file can end in a line still being written
        with stores.history.path.open("ab") as handle:
            handle.write(b'{"cursor": 999, "content": "partial')
    newest = log.read_recent(0, limit=3, session_key="cli:a")
    assert [e.content for e in newest] == ["a29", "a28", "a27"]
    assert [e.content for e in log.read_recent(0, limit=2)] == ["b29", "a29"]
    by_session = log.read_recent(55, limit=9, session_key="cli:a")
    assert [e.content for e in by_session] == ["a29", "a28"]
    since = log.read_recent(55, limit=50)
    assert [e.cursor for e in since] == [60, 59, 58, 57, 56]
    odd = log.read_recent(0, limit=50, accept=lambda e: e.cursor % 2 == 1)
    assert len(odd) == 30
    assert log.read_recent(0, limit=50, max_lines=4)[-1].cursor == 57


def test_edit_rewrites_or_drops_entries_and_keeps_the_cursor_floor(stores: Backend) -> None:
    log = stores.history
    for n in range(1, 5):
        log.append(f"entry {n}", session_key="tg:1")
    lines = _lines(stores.history.path) if isinstance(stores, FileBackend) else []
    before = log.edit({2: None, 4: "entry four, cut", 9: None})
    assert [(e.cursor, e.content) for e in before] == [(2, "entry 2"), (4, "entry 4")]
    assert [(e.cursor, e.content) for e in log.read_since(0)] == [
        (1, "entry 1"),
        (3, "entry 3"),
        (4, "entry four, cut"),
    ]
    if isinstance(stores, FileBackend):  # the file keeps every other line byte for byte
        after = _lines(stores.history.path)
        assert after[:2] == [lines[0], lines[2]]
        assert json.loads(after[2])["content"] == "entry four, cut"
    assert [e.cursor for e in log.read_since(1)] == [3, 4]
    assert log.edit({99: None}) == []
    assert log.append("next").cursor == 5


def test_lines_backwards_crosses_chunk_boundaries(tmp_path: Path) -> None:
    from reverie.storage.folder.history_read import lines_backwards

    path = tmp_path / "lines"
    lines = [f"line {index} " + "x" * (index % 7) for index in range(200)]
    path.write_bytes(("\n".join(lines) + "\npartial").encode())
    with path.open("rb") as handle:
        assert list(lines_backwards(handle, chunk=16)) == [
            line.encode() for line in reversed(lines)
        ]
    path.write_bytes(b"")
    with path.open("rb") as handle:
        assert list(lines_backwards(handle)) == []


def test_lines_backwards_skips_a_file_that_is_one_partial_line(tmp_path: Path) -> None:
    from reverie.storage.folder.history_read import lines_backwards

    path = tmp_path / "lines"
    path.write_bytes(b"no newline at all")
    with path.open("rb") as handle:
        assert list(lines_backwards(handle, chunk=4)) == []
    path.write_bytes(b"one\n")
    with path.open("rb") as handle:
        assert list(lines_backwards(handle, chunk=2)) == [b"one"]


def test_trim_quarantines_a_line_damaged_in_place_before_the_checkpoint(
    workspace: Workspace,
) -> None:
    for index in range(10):
        workspace.history.append(f"entry {index:02d}")
    workspace.history.repair()  # the checkpoint now covers the whole file
    data = workspace.history.path.read_bytes()
    lines = data.splitlines(keepends=True)
    lines[3] = b"x" * (len(lines[3]) - 1) + b"\n"  # same length, same inode: a hand edit
    with workspace.history.path.open("r+b") as handle:
        handle.write(b"".join(lines))
    workspace.dream_cursor.write(10)
    result = workspace.history.trim(keep=2)
    assert result.kept == 2
    assert [r.line for r in workspace.quarantine.records()] == [4]
    assert [e.cursor for e in workspace.history.read_since(0)] == [9, 10]
