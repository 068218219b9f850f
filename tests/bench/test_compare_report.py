"""The comparison's bookkeeping: file checks, medians, ratios and target verdicts."""

from __future__ import annotations

from pathlib import Path

from faults import check_files

import compare_report
from compare_report import Row


def test_check_files_counts_torn_lines_bad_cursors_and_temp_files(tmp_path: Path) -> None:
    memory = tmp_path / "ws" / "memory"
    memory.mkdir(parents=True)
    (memory / "history.jsonl").write_bytes(b'{"cursor": 1}\nnot json\n{"cursor": 2')
    (memory / ".cursor").write_bytes(b"")
    (memory / ".dream_cursor").write_bytes(b"7\n")
    (tmp_path / "ws" / ".s.jsonl.ab12.tmp").write_bytes(b"{")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "worker.out").write_bytes(b"not json")  # the workers' own files
    found = check_files(tmp_path)
    assert found["unreadable_names"] == ["ws/memory/.cursor", "ws/memory/history.jsonl"]
    assert found["unreadable_files"] == 2
    assert found["bad_lines"] == 2  # "not json" and the torn last line
    assert found["temp_files"] == 1


def test_medians_are_taken_per_system_over_repetitions() -> None:
    runs: dict[str, dict[str, list[object]]] = {
        "scale": {
            "reverie": [
                {"read": {"50": {"median": 3.0}}, "system": "reverie"},
                {"read": {"50": {"median": 1.0}}},
            ],
            "nanobot": [{"read": {"50": {"median": 400.0}}}],
        }
    }
    found = compare_report.medians(runs)
    assert found["reverie"] == {"scale.read.50.median": 2.0}
    assert found["nanobot"] == {"scale.read.50.median": 400.0}


def test_verdicts_follow_the_issue_targets() -> None:
    fast = Row(label="x", key="k", unit="µs", max_ratio=0.2)
    zero = Row(label="y", key="k", unit="", want_zero=True)
    plain = Row(label="z", key="k", unit="ms")
    assert compare_report.verdict(fast, 10.0, 100.0) == "met"
    assert compare_report.verdict(fast, 30.0, 100.0) == "MISSED"
    assert compare_report.verdict(fast, None, 100.0) == "no figure"
    assert compare_report.verdict(zero, 0.0, 300.0) == "met"
    assert compare_report.verdict(zero, 1.0, 300.0) == "MISSED"
    assert compare_report.verdict(plain, 5.0, 1.0) == ""


def test_table_has_a_row_per_figure_with_its_ratio() -> None:
    rows = compare_report.rows([1_000, 50_000], [100, 10_000], procs=4, count=500)
    keys = [row.key for row in rows]
    assert "scale.read_newest_20_us.50000.median" in keys
    assert "persist.persist_one_us.10000.median" in keys
    found = {
        "reverie": {"append.append_us.median": 25.0, "concurrent-history.duplicate_cursors": 0.0},
        "nanobot": {
            "append.append_us.median": 250.0,
            "concurrent-history.duplicate_cursors": 290.0,
        },
    }
    summed = {
        "reverie": {"concurrent-history.duplicate_cursors": 0.0},
        "nanobot": {"concurrent-history.duplicate_cursors": 870.0},
    }
    text = compare_report.table(rows, found, summed)
    assert "| append one entry | 25.0 µs | 250.0 µs | 0.1 | ≤ 0.2 | met |" in text
    assert "| 4x500 appends: duplicate cursors | 0 (Σ 0) | 290 (Σ 870) | 0 | 0 | met |" in text
    assert "| read 20 newest of 50,000 | - | - | - | ≤ 0.01 | no figure |" in text
    summary = compare_report.summary(rows, found, summed)
    assert summary[0]["ratio"] == 0.1
    assert len(summary) == len(rows)
    duplicates = next(item for item in summary if str(item["key"]).endswith("duplicate_cursors"))
    assert duplicates["nanobot_sum"] == 870.0
