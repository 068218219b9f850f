"""The CLI's formatting helpers: JSON conversion, one-line errors with hints, small texts."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from reverie.cli.failure import CommandFailedError, describe
from reverie.cli.render import commit_mode, one_line, print_diff, snippet, when
from reverie.core.json_data import jsonable
from reverie.errors import (
    ConfigError,
    LockTimeoutError,
    ModelConnectionError,
    ModelHTTPError,
    RevisionNotFoundError,
    WorkspaceMissingError,
)


@dataclass(frozen=True, slots=True, kw_only=True)
class _Value:
    when: datetime
    where: Path
    span: tuple[int, int]
    by_day: dict[tuple[str, str], int]


def test_jsonable_turns_results_into_json_data() -> None:
    value = _Value(
        when=datetime(2026, 11, 30, 9, 0, tzinfo=UTC),
        where=Path("/tmp/ws"),
        span=(0, 4),
        by_day={("2026-11-30", "dream"): 2},
    )
    data = jsonable([value, None, range(2)])
    assert json.loads(json.dumps(data)) == [
        {
            "when": "2026-11-30T09:00:00+00:00",
            "where": "/tmp/ws",
            "span": [0, 4],
            "by_day": {"2026-11-30/dream": 2},
        },
        None,
        [0, 1],
    ]
    with pytest.raises(TypeError, match="object"):
        jsonable(object())


def test_small_texts() -> None:
    assert one_line("a\n  b\tc") == "a b c"
    assert one_line("x" * 200, 10) == "x" * 9 + "…"
    assert when(None) == "-"
    assert commit_mode("dream: manual (model-free)") == "model-free"
    assert commit_mode("dream: interval") == "model"
    assert commit_mode("restore: abc1234 (dream: manual (model-free))") == "-"
    text = snippet("the **harbour** project\nnext")
    assert text.plain == "the harbour project next"
    assert any(span.style == "bold yellow" for span in text.spans)


def test_a_diff_goes_out_as_plain_text_when_piped(capsys: pytest.CaptureFixture[str]) -> None:
    print_diff("")
    print_diff("--- a/USER.md\n+++ b/USER.md\n@@ -1 +1 @@\n-a\n+b\n")
    assert capsys.readouterr().out == "--- a/USER.md\n+++ b/USER.md\n@@ -1 +1 @@\n-a\n+b\n"


def test_errors_become_one_line_with_a_hint() -> None:
    connection = ModelConnectionError("cannot reach\nhttp://127.0.0.1:9/v1")
    connection.add_note("gave up after 4 attempts")
    cases = {
        connection: "cannot reach http://127.0.0.1:9/v1; gave up after 4 attempts; is the",
        ModelHTTPError("bad key", status=401): "check REVERIE_API_KEY",
        RevisionNotFoundError("zz"): "`reverie log` lists the commits",
        ConfigError("bad", key="model.context_window"): "fix model.context_window",
        LockTimeoutError(Path("/ws/.reverie/locks/dream.lock"), 5): "another reverie process",
        WorkspaceMissingError("no workspace", path=Path("/nowhere")): "no workspace at /nowhere",
        CommandFailedError("plain"): "plain",
        RuntimeError(): "RuntimeError",
    }
    for error, expected in cases.items():
        line = describe(error)
        assert "\n" not in line
        assert expected in line, line
